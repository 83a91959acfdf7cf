"""Draws the Kaleido demo picture from CSV on stdin (columns: t_ms, raw_x, raw_y, x, y, published) into
$DEMO_OUT/kaleido_stream.png: the raw gaze and the released stream of one participant over the face
image of the Uniss-FGD slice, and x over time."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(sys.stdin))
num = lambda v: float(v) if v not in ("", None) else float("nan")
t = [num(r["t_ms"]) for r in rows]
raw_x, raw_y = [num(r["raw_x"]) for r in rows], [num(r["raw_y"]) for r in rows]
x, y = [num(r["x"]) for r in rows], [num(r["y"]) for r in rows]
pub = [r["published"] == "t" for r in rows]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5))
left.add_patch(plt.Rectangle((359, 131), 562, 762, fill=False, color="grey", label="face image"))
for i in range(1, 3):
    left.axvline(359 + i * 562 / 3, color="lightgrey", lw=0.8)
for i in range(1, 4):
    left.axhline(131 + i * 762 / 4, color="lightgrey", lw=0.8)
left.plot(raw_x, raw_y, color="tab:blue", lw=0.6, alpha=0.7, label="raw gaze (private)")
left.scatter([a for a, p in zip(x, pub) if p], [b for b, p in zip(y, pub) if p], color="tab:red", s=14,
             label="released points")
left.set(xlim=(0, 1280), ylim=(1024, 0), aspect="equal", xlabel="x (px)", ylabel="y (px)",
         title="screen: raw gaze and Kaleido releases")
left.legend(fontsize=7, loc="lower right")
right.plot(t, raw_x, color="tab:blue", lw=0.8, label="raw x")
right.step(t, x, where="post", color="tab:red", lw=1.0, label="released x (held between releases)")
right.set(xlabel="t (ms)", ylabel="x (px)", title="x over time")
right.legend(fontsize=7)
fig.tight_layout()
out = os.path.join(os.environ.get("DEMO_OUT", "."), "kaleido_stream.png")
fig.savefig(out, dpi=100)
print("picture:", out)
