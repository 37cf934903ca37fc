"""A small corpus of realistic short notes, for calibrating and testing the deterministic typer
on real MiniLM embeddings: a few topics, updates of older facts, a weekly meeting, a cause and
its effect, and unrelated singletons.

Each note: (key, category, title, content, source date). `GROUPS` says which notes belong
together; a link between notes of different groups is a false link.
"""

from __future__ import annotations

from datetime import UTC, datetime

Note = tuple[str, str, str, str, datetime]


def day(month: int, d: int, hour: int = 9) -> datetime:
    return datetime(2025, month, d, hour, 0, tzinfo=UTC)


NOTES: list[Note] = [
    # --- release process (ops) --------------------------------------------------------------
    ("deploy", "ops", "Deploy day", "We deploy to production every Tuesday after the standup.",
     day(1, 14)),
    ("deploy2", "ops", "Deploy day (updated)",
     "We now deploy on Thursdays instead of Tuesdays, so QA gets two more days.", day(3, 20)),
    ("rollback", "ops", "Rollback procedure",
     "If a deploy breaks production, run make rollback and post in the on-call channel.",
     day(1, 20)),
    ("staging", "ops", "Staging environment",
     "Staging mirrors production; every release sits on staging one day before the deploy.",
     day(2, 3)),
    ("ci", "ops", "CI pipeline",
     "GitHub Actions runs the test suite and builds the Docker image on every push to main.",
     day(2, 10)),
    # --- an incident: cause, effect, fix ----------------------------------------------------
    ("redis", "incidents", "Redis memory full",
     "On March 3 the Redis cache on prod-cache-1 ran out of memory; the eviction policy was "
     "noeviction.", day(3, 3, 8)),
    ("outage", "incidents", "Checkout outage",
     "Checkout was down for 40 minutes on March 3 because the Redis cache on prod-cache-1 was "
     "full and sessions could not be written.", day(3, 4)),
    ("eviction", "incidents", "Redis eviction policy",
     "After the checkout outage we set maxmemory-policy to allkeys-lru on prod-cache-1.",
     day(3, 5)),
    # --- a weekly meeting -------------------------------------------------------------------
    ("standup1", "meetings", "Weekly team standup 2025-03-03",
     "Anna finished the billing export; Ben is still on the login bug.", day(3, 3, 10)),
    ("standup2", "meetings", "Weekly team standup 2025-03-10",
     "Ben fixed the login bug; Anna started on invoice reminders.", day(3, 10, 10)),
    ("standup3", "meetings", "Weekly team standup 2025-03-17",
     "Invoice reminders are in review; Carla joins the team next week.", day(3, 17, 10)),
    # --- project Atlas (facts about the same entities) --------------------------------------
    ("atlas_kickoff", "projects", "Atlas kickoff",
     "Project Atlas kicked off with Globex; Maria Lopez from Globex is the product owner.",
     day(1, 8)),
    ("atlas_budget", "projects", "Atlas budget",
     "The Atlas budget is 120k EUR for 2025, approved by Maria Lopez at Globex.", day(1, 22)),
    ("atlas_deadline", "projects", "Atlas deadline",
     "Globex wants the Atlas MVP live by June 30; Maria Lopez will sign off the scope.",
     day(2, 12)),
    ("atlas_stack", "projects", "Atlas tech stack",
     "Atlas runs on Django, PostgreSQL and Celery, hosted at Hetzner.", day(2, 18)),
    # --- coffee (an updated preference) -----------------------------------------------------
    ("coffee", "personal", "Favourite coffee", "I drink oat milk flat whites, no sugar.",
     day(1, 5)),
    ("coffee2", "personal", "Favourite coffee (updated)",
     "I switched to black filter coffee; no more oat milk.", day(3, 1)),
    # --- running -----------------------------------------------------------------------------
    ("running", "health", "Running plan",
     "Training for the Berlin half marathon in April: three runs a week, long run on Sunday.",
     day(1, 12)),
    ("race", "health", "Half marathon result",
     "Finished the Berlin half marathon in 1:52, four minutes faster than planned.",
     day(4, 6)),
    # --- garden ------------------------------------------------------------------------------
    ("tomatoes", "home", "Tomato plants",
     "Planted six San Marzano tomato plants in big pots on the balcony.", day(5, 3)),
    ("watering", "home", "Watering the balcony plants",
     "Water the tomatoes every evening in summer, less when it rains.", day(5, 10)),
    # --- unrelated singletons ----------------------------------------------------------------
    ("dentist", "health", "Dentist appointment",
     "Dr. Keller, April 12 at 9:00, Bahnhofstrasse 5; bring the insurance card.", day(3, 25)),
    ("allergy", "health", "Allergies", "I am allergic to penicillin.", day(1, 3)),
    ("spanish", "learning", "Spanish lessons", "Spanish class with Carmen, Wednesdays 18:00.",
     day(1, 15)),
    ("tax", "admin", "Tax return 2024",
     "The tax return is due July 31; the accountant needs the bank statements.", day(2, 20)),
    ("car", "admin", "Car insurance",
     "The car insurance renews on 1 September; compare offers in August.", day(2, 27)),
    ("book", "learning", "Book to read",
     "Designing Data-Intensive Applications by Martin Kleppmann, recommended by Ben.",
     day(2, 2)),
    ("offsite", "work", "Team offsite",
     "Team offsite in Lisbon, 14 to 16 May; book flights before April.", day(3, 12)),
    ("bike", "home", "Bike repair",
     "The rear tyre of my bike needs a new tube; the shop on Main Street does it same day.",
     day(4, 2)),
    ("wifi", "home", "Internet provider",
     "We switched the home internet to fibre from Init7 in February.", day(2, 8)),
]  # fmt: skip

GROUPS: dict[str, set[str]] = {
    "release": {"deploy", "deploy2", "rollback", "staging", "ci"},
    "incident": {"redis", "outage", "eviction"},
    "standup": {"standup1", "standup2", "standup3"},
    "atlas": {"atlas_kickoff", "atlas_budget", "atlas_deadline", "atlas_stack"},
    "coffee": {"coffee", "coffee2"},
    "running": {"running", "race"},
    "garden": {"tomatoes", "watering"},
}

# Links a user would expect: (from, to, class); topical/factual pairs in either order.
EXPECTED: set[tuple[str, str, str]] = {
    ("deploy2", "deploy", "supersedes"),
    ("coffee2", "coffee", "supersedes"),
    ("redis", "outage", "causal"),
    ("standup1", "standup2", "recurrent"),
    ("standup2", "standup3", "recurrent"),
}

# Pairs that must be linked somehow (any class), in either order.
RELATED: set[frozenset[str]] = {
    frozenset(pair)
    for pair in [
        ("atlas_kickoff", "atlas_budget"),
        ("atlas_kickoff", "atlas_deadline"),
        ("atlas_budget", "atlas_deadline"),
        ("running", "race"),
        ("tomatoes", "watering"),
        ("deploy", "rollback"),
        ("outage", "eviction"),
        ("redis", "eviction"),
    ]
}


# A second set, written after the thresholds were set, to check they were not fitted to the
# first (it did prompt one rule: a renamed title that keeps every word, "VPN setup (new client)").
HELD_OUT: list[Note] = [
    ("vpn", "it", "VPN setup",
     "Connect to the office VPN with WireGuard; the config is in the IT wiki.", day(1, 6)),
    ("vpn2", "it", "VPN setup (new client)",
     "We replaced WireGuard with Tailscale; log in with your Google account instead.",
     day(3, 2)),
    ("laptop", "it", "Laptop policy",
     "Every new hire gets a MacBook Pro with FileVault turned on.", day(1, 9)),
    ("password", "it", "Password manager",
     "The team shares credentials through 1Password vaults.", day(2, 1)),
    ("index", "incidents", "Missing orders index",
     "The orders table had no index on created_at after the February migration.",
     day(2, 10, 9)),
    ("db_slow", "incidents", "Slow database queries",
     "Orders queries took 8 seconds on Feb 10 because the orders index on created_at was "
     "missing.", day(2, 10, 15)),
    ("retro1", "meetings", "Sprint retro 2025-02-07",
     "Went well: release on time. To improve: flaky tests.", day(2, 7, 16)),
    ("retro2", "meetings", "Sprint retro 2025-02-21",
     "Went well: flaky tests fixed. To improve: long code reviews.", day(2, 21, 16)),
    ("mum_bday", "family", "Mum's birthday",
     "Mum turns 65 on June 2; she wants a new garden bench.", day(4, 1)),
    ("party", "family", "Birthday party for mum",
     "Party for mum's 65th at the Italian restaurant on June 7, 12 guests.", day(4, 20)),
    ("fridge", "home", "Fridge broken",
     "The fridge stopped cooling; the repair service comes Thursday.", day(3, 11)),
    ("paris", "travel", "Paris trip",
     "Train to Paris on May 9, hotel near Gare du Nord for two nights.", day(4, 3)),
    ("guitar", "hobby", "Guitar practice", "Practise barre chords 20 minutes a day.",
     day(1, 20)),
    ("invoice", "work", "Invoice numbering",
     "Invoices are numbered INV-2025-0001 upwards, reset each year.", day(1, 2)),
    ("salary", "admin", "Salary payday", "Salary arrives on the 25th of every month.",
     day(1, 25)),
    ("plants", "home", "Houseplants", "The monstera needs water once a week and no direct sun.",
     day(3, 30)),
]  # fmt: skip

HELD_OUT_GROUPS: dict[str, set[str]] = {
    "vpn": {"vpn", "vpn2"},
    "db": {"index", "db_slow"},
    "retro": {"retro1", "retro2"},
    "mum": {"mum_bday", "party"},
}

HELD_OUT_EXPECTED: set[tuple[str, str, str]] = {
    ("vpn2", "vpn", "supersedes"),
    ("index", "db_slow", "causal"),
    ("retro1", "retro2", "recurrent"),
}


def group_of(key: str, groups: dict[str, set[str]]) -> str:
    return next((name for name, keys in groups.items() if key in keys), key)
