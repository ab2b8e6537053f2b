"""Anomaly judge: is a session's deviation from the user's own baseline a genuine outlier?

Input: per-feature z-scores of one session against the same user's baseline, and optionally the
z-shift the task type is expected to cause (a writing task raises edit counts for everyone).
The judge works on residuals r = z - expected shift, i.e. what the task does not explain:

- "outlier": at least MIN_GROUP features with |r| >= STRONG_Z. A single extreme feature can be a
  logging quirk; several at once is a coherent change of behaviour. 3 sd is rare under the
  user's own baseline (~0.3% per feature if roughly normal).
- "variation": no feature with |r| >= MILD_Z -- the session is within 2 sd of the user's habits
  once the task is accounted for (also when the raw z was large but the task explains it).
- "uncertain": in between (one strong feature alone, or only mild deviations).
"""

from __future__ import annotations

import math

STRONG_Z = 3.0
MILD_Z = 2.0
MIN_GROUP = 2
SHOWN = 4  # features named in the rationale


def _residuals(deviation_z: dict[str, float], task_shift: dict[str, float]) -> dict[str, float]:
    out = {}
    for name, z in deviation_z.items():
        shift = task_shift.get(name, 0.0)
        if not (math.isfinite(z) and math.isfinite(shift)):
            raise ValueError(f"judge_anomaly: feature {name!r} has a non-finite z ({z}) or task shift ({shift})")
        out[name] = float(z) - float(shift)
    return out


def _describe(names: list[str], deviation_z: dict[str, float], task_shift: dict[str, float],
              residual: dict[str, float]) -> str:
    shown = []
    for name in names[:SHOWN]:
        shift = task_shift.get(name, 0.0)
        detail = f"{name} z={deviation_z[name]:+.1f}"
        shown.append(detail + (f" (task explains {shift:+.1f}, residual {residual[name]:+.1f})" if shift else ""))
    return ", ".join(shown) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def judge_anomaly(deviation_z: dict[str, float], task_shift: dict[str, float] | None = None) -> tuple[str, str]:
    """(label in {"variation", "outlier", "uncertain"}, rationale naming the deciding features)."""
    task_shift = task_shift or {}
    if not deviation_z:
        return "uncertain", "no features to judge"
    residual = _residuals(deviation_z, task_shift)
    ranked = sorted(residual, key=lambda n: (-abs(residual[n]), n))
    strong = [n for n in ranked if abs(residual[n]) >= STRONG_Z]
    mild = [n for n in ranked if abs(residual[n]) >= MILD_Z]
    if len(strong) >= MIN_GROUP:
        return "outlier", (f"{len(strong)} features deviate beyond {STRONG_Z:g} sd after the task shift: "
                           + _describe(strong, deviation_z, task_shift, residual))
    if not mild:
        explained = [n for n in sorted(deviation_z, key=lambda n: (-abs(deviation_z[n]), n))
                     if abs(deviation_z[n]) >= MILD_Z]
        if explained:
            return "variation", ("deviation explained by the task type: "
                                 + _describe(explained, deviation_z, task_shift, residual))
        top = ranked[0]
        return "variation", (f"all features within {MILD_Z:g} sd of the user's baseline "
                             f"(largest {top} z={deviation_z[top]:+.1f})")
    reason = "one strong feature alone" if strong else f"only mild deviations ({MILD_Z:g}-{STRONG_Z:g} sd)"
    return "uncertain", f"{reason}: " + _describe(mild, deviation_z, task_shift, residual)
