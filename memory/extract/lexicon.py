"""Word lists the rules share: categories of well-known values, kinship and role words,
weekday names, and the small normalisers that turn phrases into attribute keys."""

from __future__ import annotations

import re
from typing import Final


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`, as a set (word lists read best as prose)."""
    return frozenset(text.split())


def ordered(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of `text`, in order."""
    return tuple(text.split())


# A value's category turns "I prefer Vim" into the attribute preferred_editor, so that a later
# "actually I prefer Emacs" shares subject + attribute with it and can supersede it.
_CATEGORY_WORDS: Final = {
    "editor": "vim neovim nvim emacs vscode vs_code visual_studio_code sublime sublime_text "
    "intellij pycharm webstorm nano atom helix zed cursor notepad++ vi",
    "programming_language": "python rust go golang java javascript typescript ruby c++ c# "
    "kotlin swift php scala haskell elixir clojure perl lua julia dart zig ocaml",
    "database": "postgres postgresql mysql mariadb sqlite mongodb redis cassandra dynamodb "
    "elasticsearch clickhouse oracle sql_server cockroachdb",
    "indentation": "tabs spaces",
    "shell": "bash zsh fish powershell",
    "operating_system": "linux macos mac windows ubuntu debian fedora arch",
    "theme": "dark_mode light_mode dark_theme light_theme",
    "framework": "django flask fastapi rails react vue angular svelte nextjs next.js spring "
    "laravel express",
    "cloud": "aws gcp azure google_cloud digitalocean hetzner",
    "package_manager": "npm yarn pnpm pip poetry uv conda",
    "browser": "chrome firefox safari edge brave",
    "version_control": "git mercurial svn",
    "container_runtime": "docker podman",
    "test_framework": "pytest unittest jest mocha vitest",
}
CATEGORIES: Final = {
    word.replace("_", " "): category
    for category, names in _CATEGORY_WORDS.items()
    for word in ordered(names)
}

# "my wife Anna", "my manager's name is Bob": the word names the relation to the user.
RELATION_WORDS: Final = words(
    "wife husband partner spouse girlfriend boyfriend fiance fiancee mom mother dad father "
    "mum parents son daughter kid child baby brother sister sibling cousin aunt uncle niece "
    "nephew grandma grandmother grandpa grandfather grandson granddaughter friend bestie "
    "colleague coworker co-worker boss manager supervisor mentor teammate roommate flatmate "
    "neighbor neighbour landlord doctor therapist dentist coach teacher tutor client "
    "lead cofounder co-founder assistant dog cat puppy kitten pet horse rabbit hamster "
    "parrot bird fish"
)
PETS: Final = words("dog cat puppy kitten pet horse rabbit hamster parrot bird fish")

OCCUPATIONS: Final = words(
    "nurse teacher engineer developer programmer designer doctor lawyer student manager "
    "accountant architect analyst scientist researcher writer journalist editor chef cook "
    "pharmacist dentist therapist consultant photographer musician artist painter "
    "electrician plumber carpenter mechanic pilot firefighter police officer professor "
    "lecturer librarian translator paramedic surgeon veterinarian vet marketer marketing "
    "specialist freelancer entrepreneur founder cto ceo cfo intern administrator sysadmin "
    "devops recruiter salesperson cashier barista waiter waitress bartender farmer "
    "economist statistician mathematician physicist chemist biologist psychologist "
    "counselor counsellor coach trainer tutor retiree homemaker"
)

WEEKDAYS: Final = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
MONTHS: Final = ordered(
    "january february march april may june july august september october november december"
)
NUMBER_WORDS: Final = {
    word: str(index)
    for index, word in enumerate(
        ordered(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
}
NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"})

STOPWORDS: Final = words(
    "a an the and or but of to in on at for from with by about as into like through over "
    "after before between out up down off than then so too very just also that this these "
    "those it its is are was were be been being am do does did doing have has had having i "
    "me my mine myself we us our you your he him his she her they them their what which who "
    "whom whose when where why how all any both each few more most other some such no nor "
    "not only own same can will would should could might may must shall there here if while "
    "because until again further once really quite"
)

_NON_KEY: Final = re.compile(r"[^a-z0-9]+")


def category_of(value: str) -> str | None:
    """The category of a well-known value ("VS Code" -> "editor"), or None."""
    key = " ".join(value.casefold().replace("-", " ").split())
    key = re.sub(r"^(?:the|using|use|with)\s+", "", key)
    return CATEGORIES.get(key)


def find_category(phrase: str, *, max_words: int = 4) -> str | None:
    """The category of the first well-known value inside a short phrase ("use tabs" ->
    indentation), or None; phrases longer than `max_words` name more than one thing."""
    words = [w.strip(".,;:!?\"'") for w in phrase.split()]
    if len(words) > max_words:
        return None
    for size in (3, 2, 1):
        for i in range(len(words) - size + 1):
            category = category_of(" ".join(words[i : i + size]))
            if category:
                return category
    return None


def slug(phrase: str, *, max_words: int = 4) -> str:
    """An attribute key from a phrase: lower case, content words, underscores.

    "favourite colour" -> "favorite_color" (British spellings folded so both spellings
    share a key), "deploy day" -> "deploy_day".
    """
    words = [w for w in _NON_KEY.split(phrase.casefold()) if w]
    content = [w for w in words if w not in STOPWORDS] or words
    folded = [_BRITISH.get(w, w) for w in content[:max_words]]
    return "_".join(folded)


_BRITISH: Final = {
    "favourite": "favorite",
    "colour": "color",
    "neighbour": "neighbor",
    "organisation": "organization",
    "counsellor": "counselor",
    "flavour": "flavor",
    "centre": "center",
    "theatre": "theater",
}


def number_value(token: str) -> str:
    """A number word as digits ("three" -> "3"); other tokens unchanged."""
    return NUMBER_WORDS.get(token.casefold(), token)
