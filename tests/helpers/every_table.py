"""A warehouse with rows in every table, written by irw's own commands (each write path the CLI
has: ingest of every file kind, --replace, eval/compare/nuggets/rouge/online --store, pools,
leave-one-out kept, interleavings, profiles, teams, rename, rm, sql --write), for the digest
tests (tests/store/test_digests.py): after each step `irw check` must pass, and a damage to
any table must be found."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.online_logs import write_qrels, write_sessions
from tests.helpers.paths import DATA, TEST_DATA

RUN = DATA / "runs" / "STANDARD.results.test"
TRUNC = DATA / "runs" / "STANDARD.results.trunc"
SEE = TEST_DATA / "rouge155_see" / "see.xml"

# the texts of the nugget set: units, matches, lengths, intents and MobileClick outputs
NUGGET_FILES = {
    "gold.tsv": "t01\tn1\t1\tranked retrieval\nt01\tn2\t1\tintent\nt02\tn1\t1\tquery\n",
    "matches.tsv": "t01\tA\tn1\t20\nt01\tB\tn1\t10\nt01\tB\tn2\t30\nt02\tA\tn1\t15\n",
    "lengths.tsv": "t01\tA\t150\nt01\tB\t40\nt02\tA\t60\nt02\tB\t80\n",
    "intents.tsv": "t01\ti1\t0.6\nt01\ti2\t0.4\nt01\ti1\tn1\t2\nt01\ti2\tn2\t1\n",
    "mobileclick.tsv": "t01\tA\t-\t1\tiunit\tn1\t5\nt01\tA\t-\t2\tlink\ti2\t5\n"
                       "t01\tA\ti2\t1\tiunit\tn2\t5\n",
}


def _files(folder: Path) -> dict[str, Path]:
    """The input files of the steps, written into `folder`."""
    f = {}
    runs = folder / "runs"
    runs.mkdir()
    for name, source in (("teamA-sys1.run", RUN), ("teamB-sys2.run", TRUNC)):
        tag = name.split("-")[1][:-4]
        lines = [" ".join(line.split()[:5] + [tag]) for line in source.read_text().splitlines()]
        (runs / name).write_text("\n".join(lines) + "\n")
    f["runs"] = runs
    f["topics"] = folder / "topics.tsv"
    f["topics"].write_text("301\tinternational organized crime\n302\tpoliomyelitis\n")
    f["intents"] = folder / "intents.Iprob"
    f["intents"].write_text("301 1 0.7\n301 2 0.3\n302 1 1.0\n")
    f["doclengths"] = folder / "doclengths.tsv"
    f["doclengths"].write_text("FR940202-2-00150\t120\nCR93E-10279\t300\n")
    f["teams"] = folder / "teams.tsv"
    f["teams"].write_text("STANDARD\tnist\nother\tnist\n")
    for name, text in NUGGET_FILES.items():
        f[name] = folder / name
        f[name].write_text(text)
    qrels = {("t1", "a"): 1, ("t1", "b"): 0, ("t1", "c"): 2, ("t2", "a"): 1, ("t2", "e"): 1}
    f["online_qrels"] = write_qrels(folder / "online_qrels.txt", qrels)
    for name, lists in (("A", {"t1": "acbd", "t2": "ae"}), ("B", {"t1": "bdca", "t2": "ea"})):
        f[name] = folder / f"{name}.run"
        f[name].write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} {name}\n"
                                   for t, docs in lists.items() for i, d in enumerate(docs)))
    rows = [(f"s{s}", topic, 1, r, d, int(d in "ac"), 3.0 * r, 40)
            for s, (topic, docs) in enumerate((("t1", "acbd"), ("t2", "ea")))
            for r, d in enumerate(docs, 1)]
    f["sessions"] = write_sessions(folder / "sessions.tsv", [
        row if row[5] else row[:6] + (None, None) for row in rows])
    f["preferences"] = folder / "prefs.txt"
    f["preferences"].write_text("topic left_run right_run preference assessor\n"
                                "t1 A B left p1\nt2 A B tie p1\n")
    f["known"] = folder / "known.txt"
    f["known"].write_text("u1 t1 a\nu2 t1 c\n")
    f["alphas"] = folder / "alphas.txt"
    f["alphas"].write_text("301 0.3\n302 0.6\n")
    f["scus"] = folder / "scus.tsv"           # a pyramid: SCUs and the models expressing them
    f["scus"].write_text("d1\tA\tm1\nd1\tA\tm2\nd1\tB\tm1\n")
    f["peers"] = folder / "peers.tsv"         # a peer summary's units annotated against it
    f["peers"].write_text("d1\tp1\tA\nd1\tp1\t-\n")
    return f


def steps(folder: Path) -> list[tuple[str, ...]]:
    """The commands (without --warehouse) that fill every table, in order."""
    f = _files(folder)
    clicks = folder / "clicks.tsv"
    return [
        ("ingest", "qrels", DATA / "qrels.test", "-C", "c", "--name", "binary"),
        ("ingest", "run", RUN, "-C", "c"),
        ("ingest", "run", TRUNC, "-C", "c", "--name", "other"),
        ("ingest", "runs", f["runs"], "-C", "bulk"),
        ("ingest", "qrels", DATA / "qrels.test", "-C", "bulk"),
        ("ingest", "topics", f["topics"], "-C", "c"),
        ("ingest", "intents", f["intents"], "-C", "c"),
        ("ingest", "doclengths", f["doclengths"], "-C", "c"),
        ("ingest", "alphas", f["alphas"], "-C", "c"),
        ("ingest", "qrels", TEST_DATA / "sampled" / "sampleval.qrels", "-C", "s",
         "--format", "sampleval"),
        ("ingest", "teams", f["teams"], "-C", "c"),
        ("eval", "-C", "c", "-m", "map", "-m", "P.10", "--store"),
        ("eval", "-C", "c", "-m", "map", "--store"),                  # the same values again
        ("compare", "-C", "c", "-m", "map", "--test", "t", "--missing", "zero", "--store"),
        ("campaign", "set", "c", "--qrels", "binary", "--order", "file"),
        ("meta", "pool", "-C", "c", "-k", "10", "--name", "d10"),
        ("meta", "loo", "-C", "c", "--pool", "d10", "-m", "map", "--keep"),
        ("ingest", "qrels", DATA / "qrels.rel_level", "-C", "c", "--name", "graded"),
        ("ingest", "run", RUN, "-C", "c", "--name", "third"),
        ("ingest", "run", TRUNC, "-C", "c", "--name", "third", "--replace"),
        ("ingest", "texts", SEE, "-C", "t", "--name", "refs"),
        ("rouge", "-n", "2", "-u", "--campaign", "t", "--references", "refs"),
        ("ingest", "nuggets", "-C", "t", "--name", "gold", "--gold", f["gold.tsv"],
         "--matches", f["matches.tsv"], "--lengths", f["lengths.tsv"],
         "--intents", f["intents.tsv"], "--mobileclick", f["mobileclick.tsv"]),
        ("nuggets", "-C", "t", "--nuggets", "gold", "-m", "nuggetF", "--store"),
        ("ingest", "pyramid", "-C", "p", "--name", "duc", "--scus", f["scus"]),
        ("ingest", "pyramid", "-C", "p", "--name", "duc", "--scus", f["scus"], "--replace",
         "--peers", f["peers"]),
        ("nuggets", "-C", "p", "--nuggets", "duc", "-m", "pyramid", "--store"),
        ("ingest", "qrels", f["online_qrels"], "-C", "o"),
        ("ingest", "run", f["A"], "-C", "o"),
        ("ingest", "run", f["B"], "-C", "o"),
        ("ingest", "sessions", f["sessions"], "-C", "o", "--run", "X"),
        ("online", "eval", "-C", "o", "-m", "CTR", "--level", "topic", "--store"),
        ("interleave", "-C", "o", "--run", "A", "--run", "B", "--seed", "3", "--depth", "4"),
        ("write-clicks", clicks),
        ("interleave", "-C", "o", "--run", "A", "--run", "B", "--seed", "3", "--clicks",
         clicks),
        ("ingest", "preferences", f["preferences"], "-C", "o"),
        ("ingest", "known", f["known"], "-C", "o"),
        ("rename", "run", "other", "second", "-C", "c"),
        ("rename", "campaign", "bulk", "folder"),
        ("rm", "run", "sys2", "-C", "folder"),
        ("sql", "--write", "UPDATE campaign SET year = 2004 WHERE name = 'c'"),
        ("campaign", "clear", "folder"),
    ]


def write_clicks(path: Path, warehouse: Path) -> None:
    """A click log on the stored interleaving: every impression clicks team A's documents."""
    import duckdb
    con = duckdb.connect(str(warehouse), read_only=True)
    lists = con.execute("SELECT topic, rank, doc, team FROM interleaved_row "
                        "ORDER BY topic, rank").fetchall()
    con.close()
    write_sessions(path, [(f"u{u}-{t}", t, 1, r, d, int(team == "A"), None, None)
                          for u in range(2) for t, r, d, team in lists])
