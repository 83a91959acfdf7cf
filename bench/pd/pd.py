"""Helpers of bench/pd/pd.sh (run with Debian's /usr/bin/python3, which has numpy and matplotlib).

  pd.py numpy FEATURES.csv       the numpy peer: the same synthesis written the way a researcher would
                                 vectorise it, timed on the file and on a 10x replication
  pd.py evaluate TEST.csv NAME=TRAIN.csv ...
                                 utility (task) and re-identification (participant) of a k-NN classifier
                                 trained on each TRAIN set and tested on the raw TEST set
  pd.py plot PASS_RATES.csv OUT.png

CSV files: header participant,task,f1,...,fm (pass rates: test,bins,omega,k,gamma,pass_rate).
"""
import sys
import time

import numpy as np


def load(path):
    raw = np.genfromtxt(path, delimiter=",", dtype=str, skip_header=1)
    if raw.ndim == 1:
        raw = raw.reshape(1, -1)
    return raw[:, 0], raw[:, 1], raw[:, 2:].astype(np.float64)


def best_of(runs, body):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return best


def numpy_marginals(tasks, x, k, bins, rng):
    """The ETRA paper's task-based marginals, vectorised: bin, marginals, sample, test, values in the bin."""
    out = np.empty_like(x)
    for task in np.unique(tasks):
        rows = np.flatnonzero(tasks == task)
        v = x[rows]
        lo, hi = v.min(axis=0), v.max(axis=0)
        width = np.where(hi > lo, (hi - lo) / bins, 0.0)
        codes = np.clip(np.floor((v - lo) / np.where(width > 0, width, 1)), 0, bins - 1).astype(np.int64)
        synthetic = np.empty_like(codes)
        for j in range(v.shape[1]):
            p = (np.bincount(codes[:, j], minlength=bins) + 1.0 / bins) / (len(rows) + 1.0)
            synthetic[:, j] = rng.choice(bins, size=len(rows), p=p)
        # Seedless: every record has the candidate's probability, so k' = n for every candidate.
        passed = np.full(len(rows), len(rows) >= k)
        out[rows] = np.where(passed[:, None], lo + (synthetic + rng.random(synthetic.shape)) * width, np.nan)
    return out


def numpy_seed_based_test(tasks, x, k, gamma, omega, bins, rng, candidates):
    """Seed-based with a random omega-subset: the privacy test of `candidates` candidates per task, each
    vectorised over the task's records (Pr by summing the subsets that contain the differing features).
    Returns seconds per candidate, weighted by task size."""
    from itertools import combinations
    m = x.shape[1]
    subsets = [np.array(s) for s in combinations(range(m), omega)]
    masks = np.array([[j in s for j in range(m)] for s in subsets])
    total = 0.0
    for task in np.unique(tasks):
        rows = np.flatnonzero(tasks == task)
        v = x[rows]
        lo, hi = v.min(axis=0), v.max(axis=0)
        width = np.where(hi > lo, (hi - lo) / bins, 1.0)
        codes = np.clip(np.floor((v - lo) / width), 0, bins - 1).astype(np.int64)
        p = np.stack([(np.bincount(codes[:, j], minlength=bins) + 1.0 / bins) / (len(rows) + 1.0)
                      for j in range(m)])
        start = time.perf_counter()
        for _ in range(candidates):
            seed = rng.integers(len(rows))
            y = codes[seed].copy()
            s = subsets[rng.integers(len(subsets))]
            for j in s:
                y[j] = rng.choice(bins, p=p[j])
            px = p[np.arange(m), y]
            differ = codes != y
            prob = np.zeros(len(rows))
            for mask, sub in zip(masks, subsets):
                covered = ~(differ & ~mask).any(axis=1)
                prob += covered * np.prod(px[sub])
            with np.errstate(divide="ignore"):
                band = np.floor(-np.log(prob / len(subsets)) / np.log(gamma))
            _ = (band == band[seed]).sum() >= k
        total += (time.perf_counter() - start) / candidates * len(rows) / len(x)
    return total


def cmd_numpy(path):
    _, tasks, x = load(path)
    rng = np.random.default_rng(1)
    print("numpy peer (numpy %s): the same synthesis, vectorised" % np.__version__)
    print("%-44s %12s %12s" % ("", "the data", "10x"))
    x10, t10 = np.tile(x, (10, 1)), np.tile(tasks, 10)
    one = best_of(3, lambda: numpy_marginals(tasks, x, 5, 30, rng))
    ten = best_of(3, lambda: numpy_marginals(t10, x10, 5, 30, rng))
    print("%-44s %11.4fs %11.4fs" % ("marginals (paper), k=5", one, ten))
    # C(33, 2) = 528 subsets per candidate: a few candidates per task suffice to time it.
    per1 = numpy_seed_based_test(tasks, x, 5, 2.0, 2, 30, rng, 20)
    per10 = numpy_seed_based_test(t10, x10, 5, 2.0, 2, 30, rng, 4)
    print("%-44s %11.2fs %11.2fs   (extrapolated: %.0f us / %.0f us per candidate, one candidate per record)"
          % ("seed-based random omega=2, k=5: the test", per1 * len(x), per10 * len(x10), 1e6 * per1, 1e6 * per10))


def knn_predict(train_x, train_y, test_x, neighbours=10):
    mean, std = train_x.mean(axis=0), train_x.std(axis=0)
    std[std == 0] = 1
    a = ((train_x - mean) / std).astype(np.float32)
    b = ((test_x - mean) / std).astype(np.float32)
    labels, codes = np.unique(train_y, return_inverse=True)
    predictions = np.empty(len(b), dtype=labels.dtype)
    for start in range(0, len(b), 500):
        chunk = b[start:start + 500]
        d = (chunk ** 2).sum(1)[:, None] - 2 * chunk @ a.T + (a ** 2).sum(1)[None, :]
        nearest = np.argpartition(d, min(neighbours, len(a) - 1), axis=1)[:, :neighbours]
        votes = np.apply_along_axis(lambda r: np.bincount(r, minlength=len(labels)), 1, codes[nearest])
        predictions[start:start + len(chunk)] = labels[votes.argmax(axis=1)]
    return predictions


def majority_vote_accuracy(predicted, truth, groups):
    """Share of groups whose most frequent prediction is the group's (single) true label."""
    correct, total = 0, 0
    for group in np.unique(groups):
        sel = groups == group
        values, counts = np.unique(predicted[sel], return_counts=True)
        correct += values[counts.argmax()] == truth[sel][0]
        total += 1
    return correct, total


def cmd_evaluate(test_path, named_trains):
    test_people, test_tasks, test_x = load(test_path)
    people, tasks = np.unique(test_people), np.unique(test_tasks)
    recordings = np.char.add(np.char.add(test_people, "/"), test_tasks)
    print("k-NN (10 neighbours, standardised features) trained on each set, tested on the raw later half of "
          "every participant's windows (%d windows, %d participants, %d tasks)" % (len(test_x), len(people),
                                                                                  len(tasks)))
    print("utility: task accuracy per window (balanced over tasks: chance %.1f%%) and per recording (a participant's "
          "windows of one task, majority vote: chance 1 in %d);" % (100 / len(tasks), len(tasks)))
    print("re-identification: participant accuracy per window (chance %.1f%%) and per participant (majority vote "
          "over all its windows: chance 1 of %d)" % (100 / len(people), len(people)))
    print("%-46s %7s %10s %13s %13s %13s" % ("training set", "rows", "task/window", "task/record", "re-id/window",
                                           "re-id/person"))
    for item in named_trains:
        name, path = item.rsplit("=", 1)
        train_people, train_tasks, train_x = load(path)
        if len(train_x) < 10:
            print("%-46s %7d %10s %13s %13s %13s" % (name, len(train_x), "-", "-", "-", "-"))
            continue
        task_predicted = knn_predict(train_x, train_tasks, test_x)
        balanced = np.mean([np.mean(task_predicted[test_tasks == t] == t) for t in tasks])
        task_ok, task_n = majority_vote_accuracy(task_predicted, test_tasks, recordings)
        predicted = knn_predict(train_x, train_people, test_x)
        window_acc = np.mean(predicted == test_people)
        person_ok, person_n = majority_vote_accuracy(predicted, test_people, test_people)
        print("%-46s %7d %9.1f%% %7d of %d %12.1f%% %7d of %d" % (name, len(train_x), 100 * balanced, task_ok,
                                                                task_n, 100 * window_acc, person_ok, person_n))


def cmd_plot(path, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = np.genfromtxt(path, delimiter=",", dtype=None, names=True, encoding="utf-8")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    ax = axes[0]
    for i, omega in enumerate(np.unique(rows["omega"])):
        for bins, style in (("data", "o-"), ("public", "s--")):
            sel = (rows["test"] == "record") & (rows["gamma"] == 2) & (rows["omega"] == omega) & (rows["bins"] == bins)
            if sel.any():
                ax.plot(rows["k"][sel], 100 * rows["pass_rate"][sel], style, color="C%d" % i,
                        label="omega = %d%s" % (omega, "" if bins == "data" else ", public bounds"))
    ax.set_title("record test, gamma = 2, by omega (of 33 features)", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    ax = axes[1]
    for i, gamma in enumerate(np.unique(rows["gamma"])):
        for test, style in (("record", "o-"), ("identity", "s--")):
            sel = (rows["test"] == test) & (rows["gamma"] == gamma) & (rows["omega"] == 30) & (rows["bins"] == "data")
            if sel.any():
                ax.plot(rows["k"][sel], 100 * rows["pass_rate"][sel], style, color="C%d" % i,
                        label="%s test, gamma = %g" % (test, gamma))
    ax.set_title("omega = 30, by gamma", fontsize=10)
    ax.legend(fontsize=7)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("candidates passing (%)")
    fig.suptitle("Plausible-deniability pass rates, seed-based model, Hoppe feature windows (33 features, 30 bins)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == "__main__":
    if sys.argv[1] == "numpy":
        cmd_numpy(sys.argv[2])
    elif sys.argv[1] == "evaluate":
        cmd_evaluate(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "plot":
        cmd_plot(sys.argv[2], sys.argv[3])
