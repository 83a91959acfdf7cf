"""Plots bench/out/heatmap_utility.csv like Liu et al. 2019, Figure 3: CC and MSE against epsilon."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
fig, (cc_ax, mse_ax) = plt.subplots(1, 2, figsize=(10, 4))
for mechanism, style in [("gaussian analytic", "o-"), ("gaussian liu2019", "s--"), ("laplace", "^-")]:
    pts = [r for r in rows if r["mechanism"] == mechanism]
    eps = [float(r["epsilon"]) for r in pts]
    cc_ax.errorbar(eps, [float(r["cc_mean"]) for r in pts], yerr=[float(r["cc_sd"]) for r in pts], fmt=style,
                   capsize=3, label=mechanism)
    mse_ax.errorbar(eps, [float(r["mse_mean"]) for r in pts], yerr=[float(r["mse_sd"]) for r in pts], fmt=style,
                    capsize=3, label=mechanism)
for ax, name in [(cc_ax, "CC with the exact heatmap"), (mse_ax, "MSE against the exact heatmap")]:
    ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_title(name)
    ax.grid(alpha=0.3)
mse_ax.set_yscale("log")
cc_ax.set_ylim(-0.1, 1.05)
cc_ax.legend()
fig.suptitle("DP heatmaps of Uniss-FGD image 2, n = 50,000 (replicated), m = 1, delta = n^-1.5 (Liu et al. Fig. 3)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
