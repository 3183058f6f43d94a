"""Dice fairness: face counts against a fair die, chi-squared, and luck.

Pure arithmetic over what a game logged; no store, no I/O. A :class:`Tally`
gathers the dice of one group (a game, a player, a club, a system): every
die rolled (its kind and face) and every hit-or-miss throw (the game
system's ``dice-luck`` capability says which dice those are, who threw them
and which faces hit). :func:`report` turns a tally into what the pages,
the game-end mail and ``pbem audit stats`` show:

- per kind of die, the count of each face against the count a fair die gives
  on average, and Pearson's chi-squared goodness of fit with its p-value
  (``scipy.stats.chisquare``): the chance that fair dice deviate at least this
  much. A p-value below :data:`ALPHA` is flagged; below
  :data:`MIN_EXPECTED` dice per face the test is not trusted and never flags;
- luck: dice showing a hit face against the hits expected for the dice
  thrown (each die hits with probability ``hit faces / faces``), as a
  z-score and its two-sided p-value (normal approximation of the sum of
  independent dice), and the most extreme run: the stretch of consecutive
  throws whose hits stray furthest from their expectation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "ALPHA",
    "MIN_EXPECTED",
    "FaceReport",
    "LuckReport",
    "LuckRun",
    "Report",
    "Tally",
    "ThrowScore",
    "face_line",
    "luck_line",
    "report",
    "report_lines",
    "run_line",
    "tally_from",
]

ALPHA = 0.001
"""A p-value below this is flagged: fair dice deviate so much about once in a thousand reports."""

MIN_EXPECTED = 5.0
"""Chi-squared is trusted only when every face is expected at least this many times."""


@dataclass(frozen=True)
class ThrowScore:
    """One hit-or-miss throw reduced to numbers: dice thrown, hits shown, chance per die."""

    dice: int
    hits: int
    chance: float

    @property
    def expected(self) -> float:
        """Hits fair dice show on average for this throw."""
        return self.dice * self.chance

    @property
    def variance(self) -> float:
        """The variance of the hits of fair dice (binomial)."""
        return self.dice * self.chance * (1.0 - self.chance)


@dataclass
class Tally:
    """The dice of one group: face counts per kind of die and the throws in order."""

    faces: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each kind of die's faces, in the system's order (a face never rolled still counts 0)."""
    counts: dict[str, Counter[str]] = field(default_factory=dict)
    throws: list[ThrowScore] = field(default_factory=list)

    def add_roll(self, die: str, faces: Sequence[str], face: str) -> None:
        """Count one die of kind ``die`` (faces ``faces``) showing ``face``."""
        self.faces.setdefault(die, tuple(faces))
        self.counts.setdefault(die, Counter())[face] += 1

    def add_throw(self, faces: Sequence[str], hit_faces: Iterable[str], sides: int) -> None:
        """Count a throw of ``faces`` where ``hit_faces`` hit, on dice of ``sides`` faces."""
        hit = frozenset(hit_faces)
        shown = sum(1 for f in faces if f in hit)
        self.throws.append(ThrowScore(len(faces), shown, len(hit) / sides if sides else 0.0))

    def merge(self, other: Tally) -> None:
        """Add ``other``'s dice to this tally (its throws after this one's)."""
        for die, faces in other.faces.items():
            self.faces.setdefault(die, faces)
        for die, counts in other.counts.items():
            self.counts.setdefault(die, Counter()).update(counts)
        self.throws.extend(other.throws)

    @property
    def dice(self) -> int:
        """How many dice were rolled."""
        return sum(sum(c.values()) for c in self.counts.values())


@dataclass(frozen=True)
class FaceReport:
    """One kind of die: faces, counts, the fair expectation and chi-squared."""

    die: str
    faces: tuple[str, ...]
    counts: tuple[int, ...]
    expected: float
    chi2: float
    p_value: float
    trusted: bool
    """Enough dice for chi-squared (every face expected :data:`MIN_EXPECTED` times)."""

    @property
    def n(self) -> int:
        """Dice rolled."""
        return sum(self.counts)

    @property
    def flagged(self) -> bool:
        """Fair dice would deviate this much less often than :data:`ALPHA` of the time."""
        return self.trusted and self.p_value < ALPHA


@dataclass(frozen=True)
class LuckRun:
    """The stretch of throws (``first`` .. ``last``, from 1) whose hits strayed furthest."""

    first: int
    last: int
    hits: int
    expected: float
    z: float


@dataclass(frozen=True)
class LuckReport:
    """Hits shown against hits expected over every hit-or-miss throw."""

    throws: int
    dice: int
    hits: int
    expected: float
    z: float
    p_value: float
    run: LuckRun | None
    cumulative: tuple[float, ...]
    """Hits minus expected hits after each throw (what the luck plot draws)."""

    @property
    def flagged(self) -> bool:
        """Hits this far from expectation happen less often than :data:`ALPHA` of the time."""
        return self.dice > 0 and self.p_value < ALPHA


@dataclass(frozen=True)
class Report:
    """The fairness report of one group."""

    title: str
    faces: tuple[FaceReport, ...]
    luck: LuckReport
    note: str = ""
    """Said under the figures (what the report could not count)."""

    @property
    def flagged(self) -> bool:
        """Any kind of die fails chi-squared, or the luck is beyond chance."""
        return any(f.flagged for f in self.faces) or self.luck.flagged

    @property
    def dice(self) -> int:
        """Dice rolled in the group."""
        return sum(f.n for f in self.faces)


def _face_report(die: str, faces: tuple[str, ...], counts: Counter[str]) -> FaceReport:
    observed = [counts.get(f, 0) for f in faces]
    n = sum(observed)
    expected = n / len(faces) if faces else 0.0
    if n == 0 or len(faces) < 2:
        return FaceReport(die, faces, tuple(observed), expected, 0.0, 1.0, False)
    from scipy import stats as sps  # noqa: PLC0415 - heavy: only when a report is computed

    result = sps.chisquare(observed)
    return FaceReport(
        die,
        faces,
        tuple(observed),
        expected,
        float(result.statistic),
        float(result.pvalue),
        expected >= MIN_EXPECTED,
    )


def _extreme_run(throws: Sequence[ThrowScore]) -> LuckRun | None:
    """The stretch with the largest |hits - expected| (Kadane's scan, both signs)."""
    best: tuple[float, int, int] | None = None
    for sign in (1.0, -1.0):
        run, start = 0.0, 0
        for i, t in enumerate(throws):
            gain = sign * (t.hits - t.expected)
            if run <= 0.0:
                run, start = gain, i
            else:
                run += gain
            if best is None or run > best[0] + 1e-12:
                best = (run, start, i)
    if best is None or best[0] <= 0.0:
        return None
    _, first, last = best
    part = throws[first : last + 1]
    hits = sum(t.hits for t in part)
    expected = sum(t.expected for t in part)
    var = sum(t.variance for t in part)
    z = (hits - expected) / math.sqrt(var) if var > 0 else 0.0
    return LuckRun(first + 1, last + 1, hits, expected, z)


def _luck(throws: Sequence[ThrowScore]) -> LuckReport:
    hits = sum(t.hits for t in throws)
    expected = sum(t.expected for t in throws)
    var = sum(t.variance for t in throws)
    z = (hits - expected) / math.sqrt(var) if var > 0 else 0.0
    from scipy import stats as sps  # noqa: PLC0415 - heavy: only when a report is computed

    p = float(2.0 * sps.norm.sf(abs(z))) if var > 0 else 1.0
    cumulative, total = [], 0.0
    for t in throws:
        total += t.hits - t.expected
        cumulative.append(total)
    return LuckReport(
        len(throws),
        sum(t.dice for t in throws),
        hits,
        expected,
        z,
        p,
        _extreme_run(throws),
        tuple(cumulative),
    )


def report(title: str, tally: Tally, note: str = "") -> Report:
    """The fairness report of ``tally`` (kinds of die in name order)."""
    faces = tuple(
        _face_report(die, tally.faces[die], tally.counts.get(die, Counter()))
        for die in sorted(tally.faces)
    )
    return Report(title, faces, _luck(tally.throws), note)


def _p(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def face_line(f: FaceReport) -> str:
    """``cc-battle, 120 dice: G 21, B 18, ... (20.0 each expected); chi2 3.10, p 0.6846``."""
    counts = ", ".join(f"{face} {c}" for face, c in zip(f.faces, f.counts, strict=True))
    head = f"{f.die}, {f.n} dice: {counts} ({f.expected:.1f} each expected)"
    if f.n == 0:
        return head
    verdict = f"chi-squared {f.chi2:.2f}, p {_p(f.p_value)}"
    if not f.trusted:
        verdict += " (too few dice to judge)"
    elif f.flagged:
        verdict += f" FLAGGED: fair dice deviate this much less than {ALPHA:g} of the time"
    return f"{head}; {verdict}"


def luck_line(luck: LuckReport) -> str:
    """``luck: 41 hits shown, 36.5 expected over 30 throws (118 dice), z +0.86, p 0.39``."""
    if not luck.throws:
        return "luck: no hit-or-miss throws"
    line = (
        f"luck: {luck.hits} hits shown, {luck.expected:.1f} expected over {luck.throws} "
        f"throws ({luck.dice} dice), z {luck.z:+.2f}, p {_p(luck.p_value)}"
    )
    if luck.flagged:
        line += " FLAGGED"
    return line


def run_line(luck: LuckReport) -> str:
    """The most extreme run in words (empty when there is none)."""
    run = luck.run
    if run is None:
        return ""
    word = "luckiest" if run.hits >= run.expected else "unluckiest"
    return (
        f"{word} run: throws {run.first} to {run.last}, {run.hits} hits where "
        f"{run.expected:.1f} were expected (z {run.z:+.2f})"
    )


def report_lines(rep: Report) -> list[str]:
    """The report as plain text lines (terminal, mail)."""
    out = [f"{rep.title}: {rep.dice} dice" + (" — FLAGGED" if rep.flagged else "")]
    out += [f"  {face_line(f)}" for f in rep.faces]
    out.append(f"  {luck_line(rep.luck)}")
    run = run_line(rep.luck)
    if run:
        out.append(f"  {run}")
    if rep.note:
        out.append(f"  ({rep.note})")
    return out


def tally_from(
    rolls: Iterable[tuple[str, str]],
    die_faces: Mapping[str, Sequence[str]],
) -> Tally:
    """A tally of ``(die, face)`` rolls, the faces of each die from ``die_faces``."""
    t = Tally()
    for die, faces in sorted(die_faces.items()):
        t.faces.setdefault(die, tuple(faces))
    for die, face in rolls:
        t.add_roll(die, die_faces.get(die, (face,)), face)
    return t
