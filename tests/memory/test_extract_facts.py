"""Attribute facts about the user (memory/extract/rules_facts.py, rules_relative.py)."""

from __future__ import annotations

from tests.memory.helpers import attributes, by_attribute, one, run


def test_it_reads_my_x_is_y_with_a_supersedable_attribute() -> None:
    found = one(run("My email is ana@example.org."), "email")
    assert (found.subject, found.value) == ("user", "ana@example.org")
    assert found.statement == "The user's email is ana@example.org."


def test_it_keeps_the_tense_of_my_x_was_y() -> None:
    found = one(run("My old name was Johnson, but now it's Winters."), "old_name")
    assert found.statement == "The user's old name was Johnson."


def test_it_reads_our_x_as_the_teams() -> None:
    found = one(run("Our deploy day is Thursday."), "deploy_day")
    assert (found.subject, found.value) == ("team", "Thursday")


def test_it_ignores_conversational_my_x_is() -> None:
    assert not by_attribute(run("My question is about taxes. My point is simple."), "question")
    assert "point" not in attributes(run("My point is simple."))


def test_it_names_the_people_and_pets_around_the_user() -> None:
    result = run(
        "My wife's name is Anna.",
        "I walked my dog Max this morning.",
        "Tom is my manager.",
        "I met my friend, Sarah, for lunch.",
    )
    names = {e.attribute: e.value for e in result.extractions if e.attribute.endswith("_name")}
    assert names == {
        "wife_name": "Anna",
        "dog_name": "Max",
        "manager_name": "Tom",
        "friend_name": "Sarah",
    }


def test_it_takes_a_relatives_name_even_from_a_question() -> None:
    # The question asks about the dinner; it takes for granted who the sister is.
    found = one(run("Can my sister Lena join the dinner?"), "sister_name")
    assert found.value == "Lena" and found.confidence < 0.85


def test_it_reads_employer_and_former_employer() -> None:
    result = run("I work at Acme Corp. I used to work for Globex.")
    assert one(result, "employer").value == "Acme Corp"
    assert one(result, "former_employer").value == "Globex"
    assert one(result, "employer").statement == "The user works at Acme Corp."


def test_it_reads_occupation_and_its_employer() -> None:
    found = one(run("I'm a nurse at St Mary Hospital."), "occupation")
    assert found.value == "nurse"
    assert found.statement == "The user is a nurse at St Mary Hospital."


def test_it_reads_a_previous_role() -> None:
    result = run("I used Trello in my previous role as a marketing specialist at a small startup.")
    assert one(result, "former_occupation").value == "marketing specialist at a small startup"


def test_it_reads_where_the_user_lives_moved_and_comes_from() -> None:
    result = run("I live in Berlin. I moved to Lisbon last year. I'm originally from Porto.")
    places = {e.value: e.attribute for e in result.extractions if e.rule == "place"}
    assert places == {"Berlin": "lives_in", "Lisbon": "lives_in", "Porto": "origin"}
    assert one(run("I moved to Lisbon."), "lives_in").statement == "The user moved to Lisbon."


def test_it_takes_no_place_from_a_conditional() -> None:
    assert "lives_in" not in attributes(run("If I moved to Paris, I would learn French."))


def test_it_reads_tools_in_use_by_category() -> None:
    result = run("We use Postgres for everything. I use Obsidian for notes.")
    database = one(result, "database")
    assert (database.subject, database.value) == ("team", "Postgres")
    assert one(result, "uses").value == "Obsidian"


def test_it_counts_with_number_words_as_digits() -> None:
    found = one(run("I have three bikes and a scooter."), "count_bikes")
    assert found.value == "3"
    assert one(run("I have 20 playlists on Spotify."), "count_playlists").value == "20"


def test_it_reads_habits_and_negated_habits() -> None:
    result = run("I usually get home around 6:30 pm. I never drink coffee after noon.")
    habits = {e.value: e.negated for e in by_attribute(result, "habit")}
    assert habits == {"get home around 6:30 pm": False, "drink coffee after noon": True}


def test_it_keeps_what_the_user_asks_to_remember() -> None:
    found = one(run("Remember that my train leaves at 7:40."), "note")
    assert found.rule == "remember" and found.confidence == 0.9
    assert found.statement == "The user's train leaves at 7:40."


def test_it_reads_what_a_relative_clause_takes_for_granted() -> None:
    result = run("I need to add my certification in Data Science, which I completed last month.")
    found = next(e for e in result.extractions if e.rule == "presupposed")
    assert found.statement == ("The user completed their certification in Data Science last month.")
    assert found.dates  # "last month", resolved against the message time


def test_it_reads_what_a_question_takes_for_granted_with_less_confidence() -> None:
    result = run("Any ideas for a cake like the lemon cake that I made for Ana's party?")
    found = next(e for e in result.extractions if e.rule == "presupposed")
    assert found.statement == "The user made the lemon cake for Ana's party."
    assert found.confidence == 0.6


def test_it_ignores_relative_clauses_about_the_conversation() -> None:
    assert not [e for e in run("Use the recipe that I mentioned.").extractions]


def test_it_reads_an_as_a_identity() -> None:
    found = one(run("As a Sony camera user, I want a lighter bag."), "identity")
    assert found.statement == "The user is a Sony camera user."


def test_it_takes_no_fact_from_an_assistant() -> None:
    text = "Since you prefer Vim: you work at Acme Corp, you have two options, you use Emacs."
    result = run(("assistant", text))
    assert [(e.attribute, e.value) for e in result.extractions] == [("preferred_editor", "Vim")]


def test_it_takes_no_habit_from_a_single_past_moment() -> None:
    assert "habit" not in attributes(run("I never realized how much Bach influenced them."))


def test_it_takes_no_deed_from_a_relative_clause_in_the_present() -> None:
    result = run("I found photos of my beach trip that I need to sort through.")
    assert not [e for e in result.extractions if e.rule == "presupposed"]


def test_it_keeps_thousands_separators_in_a_value() -> None:
    assert one(run("Our budget per person is around $2,500."), "budget_per_person").value == (
        "around $2,500"
    )


def test_it_takes_no_deed_from_an_auxiliary() -> None:
    result = run("Can you find the video which I was editing in 2020?")
    assert not [e for e in result.extractions if e.rule == "presupposed"]


def test_it_leaves_the_possessive_off_a_name() -> None:
    found = one(run("I just got back from my colleague David's birthday."), "colleague_name")
    assert found.value == "David"


def test_it_writes_the_users_words_in_the_third_person_inside_templates() -> None:
    result = run("I've been using my gym bag daily. My grandmother's empanadas were my favourite.")
    statements = [e.statement for e in result.extractions if e.rule in {"uses", "my_x_is"}]
    assert statements == [
        "The user uses their gym bag.",
        "The user's grandmother's empanadas were their favourite.",
    ]


def test_it_leaves_the_full_stop_off_a_value() -> None:
    assert one(run("I use Obsidian."), "uses").value == "Obsidian"
