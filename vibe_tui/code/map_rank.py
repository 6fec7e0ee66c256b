"""Ranking for the repo map: which definitions of a repository matter most.

Files form a graph with a link from a file referencing a
name to each file defining it. A link weighs more when the name is used more often in
the file (square root, so one name used everywhere does not drown the rest) and when
the name is distinctive (``QuerySet``, ``parse_http_date``); less when it is private,
one of the language's own (``append``, ``push``), defined inside something else (a
method, the likelier false match of a common name) or in a test. A name defined in
several files shares its weight among them; one defined in very many is left out.

PageRank over that graph, personalised towards the focus files and the files defining
or named like the focus identifiers, ranks the files; each file's rank then flows along
its links to the definitions it uses, which ranks the definitions. Definitions named in
the focus come first.

PageRank is a short power iteration here rather than ``networkx.pagerank``, which needs
numpy and scipy (not installed); the graphs are small (one node per file).
"""

from __future__ import annotations

import builtins
import math
from collections import defaultdict
from collections.abc import Set
from operator import mul, sub

from vibe_tui.code.tags import Definition, FileTags

# Link weights (see the module docstring); only their ratios matter.
DISTINCTIVE_WEIGHT = 10.0
LONG_IDENT_CHARS = 8  # a compound name this long is distinctive
MIN_IDENT_CHARS = 3  # shorter names (i, x, db) link nothing
PRIVATE_WEIGHT = 0.1
COMMON_WEIGHT = 0.1
NESTED_WEIGHT = 0.3
TEST_WEIGHT = 0.1
SELF_WEIGHT = 0.1
FOCUS_BOOST = 10.0
# A name defined in more files than this (get, save, run...) would link everything to
# everything; it is left out of the graph unless it is in the focus.
MAX_DEFINERS = 20
_TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "testdata", "fixtures"})
_TEST_NAME_MARKERS = ("_test.", ".test.", "_spec.", ".spec.", "tests.")

DAMPING = 0.85
# Weight of every file's link to nowhere in particular (see pagerank): about one plain
# reference, a tenth of one to a distinctive name.
UNLINKED_WEIGHT = 1.0
# Change in the rank vector (which sums to 1) that ends the iteration: the order of
# the top files is settled well before this (bench/README.md, "Figures behind constants").
PAGERANK_TOLERANCE = 2e-3
PAGERANK_MAX_ITERATIONS = 100

# Names of the languages' own functions and methods: a call to one of them is almost
# never a call to a project's definition of the same name. Python's come from the
# running interpreter; JavaScript's are the commonest built-in methods.
_COMMON_NAMES = frozenset(
    [
        *dir(builtins),
        *(name for kind in (str, bytes, list, dict, set, tuple, int, float, object) for name in dir(kind)),
        *"push pop shift unshift slice splice concat map filter reduce forEach find some every includes".split(),
        *"indexOf join split replace trim toString valueOf length keys values entries assign then".split(),
        *"catch finally log error warn resolve reject parse stringify apply call bind".split(),
    ]
)


# One reference from a file to a file defining the name: (source, target, name, weight),
# files by their position in the list of files.
_Link = tuple[int, int, str, float]


def rank(
    tags: dict[str, FileTags], focus_files: Set[str], focus_idents: Set[str]
) -> list[tuple[str, Definition | None]]:
    """Definitions (file, definition) best first, then the files with no definition in
    that list as (file, None), best first."""
    files = list(tags)
    links = _links(tags, files, focus_idents)
    personal = _personalisation(tags, focus_files, focus_idents)
    file_rank = pagerank(len(files), links, [personal.get(rel, 0.0) for rel in files])
    scores = _definition_scores(links, file_rank)
    ranked: list[tuple[float, str, Definition]] = []
    for position, rel in enumerate(files):
        definitions = tags[rel].definitions
        # Every definition gets a sliver of its file's rank, so the unreferenced ones
        # of an important file still come before those of an unimportant one.
        base = file_rank[position] * 1e-3 / max(1, len(definitions))
        # Definitions named in the focus come first (PageRank shares sum to 1), those
        # of files defining several focus names (QuerySet and filter) before the rest.
        focus_bonus = len({d.name for d in definitions} & focus_idents) if focus_idents else 0
        for definition in definitions:
            score = scores.get((position, definition.name), 0.0) + base
            if definition.name in focus_idents:
                score += focus_bonus
            ranked.append((score, rel, definition))
    ranked.sort(key=lambda item: (-item[0], item[1], item[2].line))
    result: list[tuple[str, Definition | None]] = [(rel, d) for _, rel, d in ranked]
    by_rank = sorted(range(len(files)), key=lambda position: (-file_rank[position], files[position]))
    result.extend((files[position], None) for position in by_rank if not tags[files[position]].definitions)
    return result


def _ident_weight(ident: str, focus_idents: Set[str]) -> float:
    """How much a reference to ``ident`` says about which file it points at."""
    if ident in focus_idents:
        return FOCUS_BOOST
    if len(ident) < MIN_IDENT_CHARS:
        return 0.0  # i, x, db: too common to point anywhere
    weight = 1.0
    if ident.startswith("_"):
        weight *= PRIVATE_WEIGHT  # private and dunder names say little across files
    if ident in _COMMON_NAMES:
        weight *= COMMON_WEIGHT  # x.lower() is str.lower, whoever else defines lower
    if _is_distinctive(ident):
        weight *= DISTINCTIVE_WEIGHT
    return weight


def _is_distinctive(ident: str) -> bool:
    """A type name (QuerySet, Model) or a long compound one (parse_http_date): unlike
    get, add or run, such a name is rarely used for two different things."""
    core = ident.strip("_")
    if core[:1].isupper() and any(c.islower() for c in core):
        return True
    has_case_change = any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)
    return len(core) >= LONG_IDENT_CHARS and ("_" in core or has_case_change)


def _is_test_file(rel: str) -> bool:
    parts = rel.lower().split("/")
    name = parts[-1]
    return (
        any(part in _TEST_DIRS for part in parts[:-1])
        or name.startswith("test_")
        or any(marker in name for marker in _TEST_NAME_MARKERS)
    )


def _definers(tags: dict[str, FileTags], files: list[str]) -> dict[str, list[tuple[int, float]]]:
    """For each defined name, the files defining it and what share of a reference to
    the name each gets. A nested definition (a method, an inner function) is the
    likelier false match of a name used everywhere (add, get, items), and a test's own
    helper class is rarely what a reference means, so those get smaller shares."""
    definers: dict[str, dict[int, float]] = defaultdict(dict)
    for position, rel in enumerate(files):
        file_weight = TEST_WEIGHT if _is_test_file(rel) else 1.0
        for definition in tags[rel].definitions:
            nested = definition.signature[:1].isspace()
            weight = file_weight * (NESTED_WEIGHT if nested else 1.0)
            known = definers[definition.name]
            known[position] = max(known.get(position, 0.0), weight)
    shares: dict[str, list[tuple[int, float]]] = {}
    for name, found in definers.items():
        # Divided among several definers; a lone weak one keeps its own small weight.
        total = max(1.0, sum(found.values()))
        shares[name] = [(position, weight / total) for position, weight in found.items()]
    return shares


def _links(tags: dict[str, FileTags], files: list[str], focus_idents: Set[str]) -> list[_Link]:
    # Per name, once: its weight and the files defining it; None if it links nothing.
    known: dict[str, tuple[float, list[tuple[int, float]]] | None] = {}
    definers = _definers(tags, files)
    links: list[_Link] = []
    for source, rel in enumerate(files):
        for ident, count in tags[rel].references.items():
            if ident not in known:
                known[ident] = _ident_links(ident, definers.get(ident), focus_idents)
            found = known[ident]
            if found is not None:
                weight = found[0] * math.sqrt(count)
                links.extend([(source, target, ident, weight * share * _self(source, target)) for target, share in found[1]])
    return links


def _self(source: int, target: int) -> float:
    # A file using its own definitions says little about what the rest of the code
    # needs, and would let a big file feed its own rank.
    return SELF_WEIGHT if source == target else 1.0


def _ident_links(
    ident: str, targets: list[tuple[int, float]] | None, focus_idents: Set[str]
) -> tuple[float, list[tuple[int, float]]] | None:
    if not targets or (len(targets) > MAX_DEFINERS and ident not in focus_idents):
        return None
    weight = _ident_weight(ident, focus_idents)
    return (weight, targets) if weight > 0.0 else None


def _personalisation(tags: dict[str, FileTags], focus_files: Set[str], focus_idents: Set[str]) -> dict[str, float]:
    """Where a random walk restarts: the focus files, the files named like a focus
    identifier and the files defining one (shared among them: a name defined in four
    files points at none of them strongly); everywhere alike without a focus."""
    weights: dict[str, float] = defaultdict(float)
    for rel in focus_files:
        weights[rel] += 1.0
    if not focus_idents:
        return weights
    definers: dict[str, list[str]] = defaultdict(list)
    for rel, file_tags in tags.items():
        if _named_like(rel, focus_idents):
            weights[rel] += 1.0
        for name in {d.name for d in file_tags.definitions} & focus_idents:
            definers[name].append(rel)
    for files in definers.values():
        for rel in files:
            weights[rel] += 1.0 / len(files)
    return weights


def _named_like(rel: str, idents: Set[str]) -> bool:
    parts = rel.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return stem in idents or any(part in idents for part in parts)


def pagerank(size: int, links: list[_Link], personal: list[float]) -> list[float]:
    """PageRank of nodes 0..size-1 by power iteration over weighted links.
    ``personal`` (weights, any scale) is where walks restart; all zero means uniform.
    Every node also has ``UNLINKED_WEIGHT`` of links to nowhere in particular, which
    restart the walk: a file whose only references are weak (a call to ``super``) so
    passes on little, where plain PageRank would hand all its rank to them. Ranks sum
    to 1."""
    if size == 0:
        return []
    total = sum(personal)
    restart = [weight / total for weight in personal] if total > 0 else [1.0 / size] * size
    out_weight = _out_weights(size, links)
    kept = [(out_weight[node] - UNLINKED_WEIGHT) / out_weight[node] for node in range(size)]
    outgoing = _outgoing(links, out_weight)
    ranks = restart
    for _ in range(PAGERANK_MAX_ITERATIONS):
        teleport = 1.0 - DAMPING * sum(map(mul, ranks, kept))  # all rank not following a link
        new = [teleport * share for share in restart]
        for source, targets in outgoing:
            flow = DAMPING * ranks[source]
            for target, share in targets:
                new[target] += flow * share
        change = sum(map(abs, map(sub, new, ranks)))
        ranks = new
        if change < PAGERANK_TOLERANCE:
            break
    return ranks


def _outgoing(links: list[_Link], out_weight: list[float]) -> list[tuple[int, list[tuple[int, float]]]]:
    """For each node with links, the nodes it links to and the share of its rank each gets."""
    merged: dict[tuple[int, int], float] = defaultdict(float)
    for source, target, _, weight in links:
        merged[(source, target)] += weight
    outgoing: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for (source, target), weight in merged.items():
        outgoing[source].append((target, weight / out_weight[source]))
    return list(outgoing.items())


def _out_weights(size: int, links: list[_Link]) -> list[float]:
    out_weight = [UNLINKED_WEIGHT] * size
    for source, _, _, weight in links:
        out_weight[source] += weight
    return out_weight


def _definition_scores(links: list[_Link], file_rank: list[float]) -> dict[tuple[int, str], float]:
    """Each file's rank shared out along its links, by weight, to the (file, name)
    pairs it refers to."""
    out_weight = _out_weights(len(file_rank), links)
    scores: dict[tuple[int, str], float] = defaultdict(float)
    for source, target, ident, weight in links:
        scores[(target, ident)] += file_rank[source] * weight / out_weight[source]
    return scores
