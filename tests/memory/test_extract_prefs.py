"""Preferences and standing instructions (memory/extract/rules_prefs.py)."""

from __future__ import annotations

from tests.memory.helpers import attributes, by_attribute, one, run


def test_it_takes_a_preference_with_its_alternative_and_category() -> None:
    found = one(run("I prefer Vim over VS Code."), "preferred_editor")
    assert (found.kind, found.subject, found.value) == ("preference", "user", "Vim")
    assert found.statement == "The user prefers Vim over VS Code."
    assert found.evidence.quote == "I prefer Vim over VS Code"


def test_it_keeps_an_uncategorised_preference_under_prefers() -> None:
    found = one(run("I prefer winding down by 9:30 pm to prepare for sleep."), "prefers")
    assert found.value == "winding down by 9:30 pm"


def test_it_reads_likes_and_dislikes_with_their_polarity() -> None:
    result = run("I love hiking in the Alps. I can't stand loud restaurants.")
    likes = {e.value: e.negated for e in by_attribute(result, "likes")}
    assert likes == {"hiking in the Alps": False, "loud restaurants": True}
    assert by_attribute(result, "likes")[1].statement == "The user dislikes loud restaurants."


def test_it_reads_a_negated_like_as_a_dislike() -> None:
    found = one(run("I don't like cilantro."), "likes")
    assert found.negated and found.polarity == "negative"


def test_it_ignores_reactions_to_the_conversation() -> None:
    result = run("I love that idea! I like those suggestions. I love your list.")
    assert "likes" not in attributes(result)


def test_it_reads_a_favourite_either_way_round() -> None:
    assert one(run("My favourite colour is green."), "favorite_color").value == "green"
    found = one(run("Nike has been my favourite brand so far."), "favorite_brand")
    assert found.value == "Nike"


def test_it_reads_a_named_favourite_inside_a_sentence() -> None:
    result = run("I'm cooking with my favorite Japanese short-grain rice tonight.")
    found = one(result, "favorite_rice")
    assert found.value == "Japanese short-grain rice"
    assert found.statement == "The user's favourite rice is Japanese short-grain rice."


def test_it_takes_no_favourite_from_a_bare_category() -> None:
    assert not any(a.startswith("favorite") for a in attributes(run("I miss my favorite TV show.")))


def test_it_reads_which_i_enjoy_after_a_name() -> None:
    found = one(run("I edit with Adobe Premiere Pro, which I enjoy using."), "likes")
    assert found.value == "Adobe Premiere Pro"


def test_it_takes_no_preference_from_a_question() -> None:
    result = run("Do I prefer tabs or spaces?", "Would I like sushi?")
    assert not [e for e in result.extractions if e.kind == "preference"]


def test_it_takes_no_preference_from_a_hypothetical() -> None:
    result = run("If I liked jazz, I would prefer Coltrane.", "Maybe I prefer tea.")
    assert not [e for e in result.extractions if e.kind == "preference"]


def test_it_takes_no_preference_from_quoted_speech() -> None:
    result = run('My brother always says "I love country music" to annoy me.')
    assert "likes" not in attributes(result)


def test_it_turns_a_directive_into_a_negated_preference() -> None:
    found = one(run("From now on, don't use tabs."), "preferred_indentation")
    assert found.negated and found.value == "use tabs"
    assert found.statement == "The user asks the assistant not to use tabs from now on."


def test_it_keys_an_uncategorised_directive_by_its_verb_phrase() -> None:
    found = one(run("Always answer in German."), "rule:answer_german")
    assert not found.negated


def test_it_ignores_directive_shaped_small_talk() -> None:
    assert not attributes(run("Don't worry about it. Never mind."))


def test_it_takes_an_assistant_restatement_with_less_confidence() -> None:
    said = one(run("I prefer Emacs."), "preferred_editor")
    restated = one(
        run(("assistant", "Since you prefer Emacs, here is a config.")), "preferred_editor"
    )
    assert restated.value == said.value == "Emacs"
    assert restated.speaker == "assistant" and restated.confidence < said.confidence


def test_it_ignores_an_assistant_guessing_what_the_user_likes() -> None:
    result = run(("assistant", "Here is something you'll love. Pick the one you enjoy most."))
    assert not result.extractions


def test_it_ignores_the_assistant_speaking_of_itself() -> None:
    assert not run(("assistant", "I love helping with recipes.")).extractions


def test_it_keeps_the_infinitive_of_prefer_to() -> None:
    found = one(run("I prefer to shop in person."), "prefers")
    assert found.statement == "The user prefers to shop in person."


def test_it_ignores_liking_a_suggestion() -> None:
    assert "likes" not in attributes(run("I like the gym-based social activities idea."))


def test_it_takes_no_favourite_the_assistant_claims_for_itself() -> None:
    assert not run(("assistant", "Python is my favourite language.")).extractions


def test_it_takes_an_assistant_restating_the_users_favourite() -> None:
    result = run(("assistant", "Your favourite editor is Emacs, so here is a config."))
    assert one(result, "favorite_editor").value == "Emacs"


def test_it_takes_no_favourite_or_like_without_a_named_thing() -> None:
    result = run("I watch my favorite YouTubers.", "That's the one I like the most.")
    assert not [e for e in result.extractions if e.kind == "preference"]
