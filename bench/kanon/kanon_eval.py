"""Evaluation side of bench/kanon/kanon.sh (numpy only; run with /usr/bin/python3).

  kanon_eval.py numpy-time FEATURES.csv K        time a numpy k-same-select sequence over the same rows
  kanon_eval.py attack RAW.csv RELEASES.csv OUT.png
      RAW.csv: participant,task,window,half,features  (half 1 = released span, half 2 = attacker's raw data)
      RELEASES.csv: grouping,k,rep,participant,task,window,features,group_id  (k-same-select of half 1 with
      one grouping across tasks ("across", the default) or per task ("task", the paper's); k = 1: the raw
      half 1)
      Prints the re-identification and task-classification table; writes a plot.
  kanon_eval.py synth-attack STREAMS.csv
      STREAMS.csv: kind,release,rep,participant,task,samples,features  (one feature vector per stream, empty
      when the stream is too short for one window; kind original (whole streams), first / second (the halves
      of each original stream in time) or synthetic (the release named by `release`, e.g. "k-same-synth k = 2",
      repetition rep); written by bench/kanon/synth_eval.psql)
      Prints the re-identification of synthetic streams by 1-NN and a random forest trained on the originals,
      with the positive control (trained on first halves, identifying second halves) and chance.
"""
import csv
import sys
import time

import numpy as np


def parse_array(text):
    return np.array([float(v) for v in text.strip("{}").split(",")])


def numpy_time(path, k):
    rows = {}
    for p, t, w, f in csv.reader(open(path)):
        rows.setdefault(t, {}).setdefault(p, []).append((int(w), parse_array(f)))
    # Per task: (N, L, d) padded by repeating the last vector, as a researcher would hold it in numpy.
    tasks = []
    for t, by_p in rows.items():
        seqs = [np.array([v for _, v in sorted(s, key=lambda x: x[0])]) for s in by_p.values()]
        longest = max(len(s) for s in seqs)
        padded = np.stack([np.concatenate([s, np.repeat(s[-1:], longest - len(s), axis=0)]) for s in seqs])
        tasks.append(padded)
    rng = np.random.default_rng()
    best = float("inf")
    for _ in range(20):
        t0 = time.perf_counter()
        for x in tasks:
            n = x.shape[0]
            groups = n // k
            group = np.empty(n, dtype=np.int64)
            group[rng.permutation(n)] = np.arange(n) % groups  # sizes differ by at most one
            weights = np.zeros((groups, n))
            weights[group, np.arange(n)] = 1.0 / np.bincount(group, minlength=groups)[group]
            means = (weights @ x.reshape(n, -1)).reshape((groups,) + x.shape[1:])
            released = means[group]  # every member gets its group's sequence
            assert released.shape == x.shape
        best = min(best, time.perf_counter() - t0)
    print(f"{best * 1000:.2f}")


def load_raw(path):
    out = []
    for r in csv.DictReader(open(path)):
        out.append((r["participant"], r["task"], int(r["half"]), parse_array(r["features"])))
    return out


ACTIVITY = {"way_to_shop": "way", "way_back": "way", "shop": "shop"}
GROUPING = {"raw": "raw data", "across": "across tasks (default)", "task": "per task (paper)"}


def standardise(train, test):
    mu, sd = train.mean(axis=0), train.std(axis=0)
    sd[sd == 0] = 1
    return (train - mu) / sd, (test - mu) / sd


def nn_scores(train, labels, test, classes):
    """1-NN class scores: ties (identical released vectors of a group) share the vote equally, i.e. the
    expected accuracy of breaking ties at random."""
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[c] for c in labels])
    scores = np.zeros((len(test), len(classes)))
    for start in range(0, len(test), 512):
        d = ((test[start:start + 512, None, :] - train[None, :, :]) ** 2).sum(axis=2)
        nearest = d <= d.min(axis=1, keepdims=True) * (1 + 1e-12) + 1e-300
        for i, row in enumerate(nearest):
            hit = np.bincount(y[row], minlength=len(classes)).astype(float)
            scores[start + i] = hit / hit.sum()
    return scores


def rbf_scores(train, labels, test, classes, centres=200, rng=None):
    """RBF network (the paper's attack model): Gaussian units on centres drawn from the training vectors,
    width = median centre distance, output layer by ridge least squares on one-hot labels."""
    index = {c: i for i, c in enumerate(classes)}
    y = np.zeros((len(train), len(classes)))
    y[np.arange(len(train)), [index[c] for c in labels]] = 1
    unique = np.unique(train, axis=0)
    c = unique[rng.choice(len(unique), size=min(centres, len(unique)), replace=False)]
    d = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2))
    width = np.median(d[d > 0]) if np.any(d > 0) else 1.0

    def phi(x):
        return np.exp(-((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=2) / (2 * width ** 2))

    h = phi(train)
    w = np.linalg.solve(h.T @ h + 1e-3 * np.eye(h.shape[1]), h.T @ y)
    return phi(test) @ w


def accuracy(scores, truth, classes, balanced=False):
    """Expected accuracy with ties broken at random (argmax sets within 1e-9); balanced: the mean of the
    per-class accuracies (chance 1/classes whatever the class sizes)."""
    index = {c: i for i, c in enumerate(classes)}
    top = scores >= scores.max(axis=1, keepdims=True) - 1e-9
    t = np.array([index[c] for c in truth])
    hit = top[np.arange(len(t)), t] / top.sum(axis=1)
    if balanced:
        return float(np.mean([hit[t == c].mean() for c in range(len(classes)) if np.any(t == c)]))
    return float(np.mean(hit))


def per_participant(scores, truth, classes):
    """The paper's decision: scores averaged over all of an individual's test vectors."""
    people = sorted(set(truth))
    total = []
    for p in people:
        mask = np.array([t == p for t in truth])
        total.append(scores[mask].mean(axis=0))
    return accuracy(np.array(total), people, classes)


def forest_scores(train, labels, test, classes, trees=100, rng=None):
    """Random forest (Breiman 2001): `trees` Gini trees grown to purity on bootstrap samples, sqrt(d) random
    features tried per split; the scores are the mean of the trees' leaf class distributions."""
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[c] for c in labels])
    n, d = train.shape
    tried = max(1, int(np.sqrt(d)))
    scores = np.zeros((len(test), len(classes)))
    for _ in range(trees):
        rows = rng.integers(0, n, n)
        scores += predict_tree(grow_tree(train[rows], y[rows], len(classes), tried, rng), test)
    return scores / trees


def grow_tree(x, y, classes, tried, rng):
    """A tree as parallel lists: split feature (-1 for a leaf), threshold, left and right child, leaf
    class distribution."""
    feature, threshold, left, right, leaf = [], [], [], [], []

    def node(rows):
        i = len(feature)
        feature.append(-1), threshold.append(0.0), left.append(-1), right.append(-1)
        counts = np.bincount(y[rows], minlength=classes).astype(float)
        leaf.append(counts / counts.sum())
        if len(rows) < 2 or counts.max() == len(rows):
            return i
        best = (np.inf, -1, 0.0)
        for f in rng.choice(x.shape[1], size=tried, replace=False):
            order = rows[np.argsort(x[rows, f], kind="stable")]
            v = x[order, f]
            onehot = np.zeros((len(order), classes))
            onehot[np.arange(len(order)), y[order]] = 1
            below = np.cumsum(onehot, axis=0)[:-1]  # class counts left of each cut
            above = counts - below
            nl = np.arange(1, len(order))[:, None]
            gini = (nl[:, 0] - (below ** 2).sum(axis=1) / nl[:, 0]) + \
                   ((len(order) - nl[:, 0]) - (above ** 2).sum(axis=1) / (len(order) - nl[:, 0]))
            gini[v[1:] == v[:-1]] = np.inf  # cut only between distinct values
            j = int(np.argmin(gini))
            if gini[j] < best[0]:
                cut = (v[j] + v[j + 1]) / 2
                best = (gini[j], f, cut if cut < v[j + 1] else v[j])  # adjacent floats: the midpoint rounds up
        if best[1] < 0:
            return i
        go_left = x[rows, best[1]] <= best[2]
        feature[i], threshold[i] = best[1], best[2]
        left[i] = node(rows[go_left])
        right[i] = node(rows[~go_left])
        return i

    node(np.arange(len(y)))
    return np.array(feature), np.array(threshold), np.array(left), np.array(right), np.array(leaf)


def predict_tree(tree, x):
    feature, threshold, left, right, leaf = tree
    at = np.zeros(len(x), dtype=np.int64)
    while True:
        inner = feature[at] >= 0
        if not inner.any():
            return leaf[at]
        f = feature[at[inner]]
        at[inner] = np.where(x[inner, f] <= threshold[at[inner]], left[at[inner]], right[at[inner]])


def synth_attack(path):
    """Streams without a feature vector (too short for one window) stay in: when they are test streams the
    attacker, who has nothing to compare, guesses uniformly (scores 1 / participants, i.e. chance); as
    training streams they teach nothing and are left out. Both are counted in the table."""
    streams, released = {}, {}
    for r in csv.DictReader(open(path)):
        key = (r["kind"], r["release"], int(r["rep"]))
        if key[0] == "synthetic" and int(r["samples"]) == 0:
            released.setdefault(key, 0)
            continue  # an original stream the release has no sample for: nothing to re-identify
        f = parse_array(r["features"]) if r["features"] else None
        streams.setdefault(key, []).append((r["participant"], r["task"], f))
        if key[0] == "synthetic":
            released[key] = released.get(key, 0) + 1
    rng = np.random.default_rng(17)
    originals = streams[("original", "", 0)]
    people = sorted({p for p, _, _ in originals})

    def evaluate(train_rows, test_rows):
        train_rows = [r for r in train_rows if r[2] is not None]
        featured = [i for i, r in enumerate(test_rows) if r[2] is not None]
        train = np.array([f for _, _, f in train_rows])
        test = np.array([test_rows[i][2] for i in featured]).reshape(len(featured), train.shape[1])
        keep = np.isfinite(train).all(axis=0)
        train, test = standardise(train[:, keep], test[:, keep])
        test[~np.isfinite(test)] = 0  # a feature a test stream lacks: the training mean
        labels = [p for p, _, _ in train_rows]
        truth = [p for p, _, _ in test_rows]
        tasks = [test_rows[i][1] for i in featured]
        # 1-NN among the training streams of the same task; the forest over all tasks; uniform scores for
        # the test streams without features.
        nn = np.full((len(test_rows), len(people)), 1 / len(people))
        rf = nn.copy()
        if featured:
            scores = np.zeros((len(featured), len(people)))
            for task in sorted(set(tasks)):
                a = np.array([t == task for _, t, _ in train_rows])
                b = np.array([t == task for t in tasks])
                if a.any():
                    scores[b] = nn_scores(train[a], [l for l, m in zip(labels, a) if m], test[b], people)
                else:
                    scores[b] = 1 / len(people)
            nn[featured] = scores
            rf[featured] = forest_scores(train, labels, test, people, rng=rng)
        sub = [truth[i] for i in featured]
        result = np.array([accuracy(nn, truth, people), per_participant(nn, truth, people),
                           accuracy(rf, truth, people), per_participant(rf, truth, people),
                           accuracy(nn[featured], sub, people) if featured else np.nan,
                           accuracy(rf[featured], sub, people) if featured else np.nan])
        return result, (len(test_rows), len(test_rows) - len(featured), len(train_rows))

    def cell(values):
        values = np.array(values)
        if len(values) == 0 or np.isnan(values).any():
            return "–"
        if len(values) == 1:
            return f"{values[0]:.3f}"
        return f"{values.mean():.3f} ({values.min():.3f}–{values.max():.3f})"

    def counts(n):
        tested, empty, _ = n
        return f"{tested} of {len(originals)} ({empty})"

    rows = [("chance (1 / participants)", "", [np.full(6, 1 / len(people))])]
    control, n = evaluate(streams[("first", "", 0)], streams[("second", "", 0)])
    rows.append(("positive control: first halves → second halves", counts(n), [control]))
    trained = sum(f is not None for _, _, f in originals)
    releases = []
    for key in released:
        if key[1] not in releases:
            releases.append(key[1])
    for release in releases:
        reps = sorted(key for key in released if key[1] == release)
        if not any(released[key] for key in reps):
            rows.append((f"{release}: no stream released", f"0 of {len(originals)}", []))
            continue
        results = [evaluate(originals, streams.get(key, [])) for key in reps]
        tested = [n for _, n in results]
        name = f"{release}: originals → synthetic" + (f" ({len(reps)} repetitions)" if len(reps) > 1 else "")
        label = counts(tested[0]) if len(set(tested)) == 1 else \
            " / ".join(counts(n) for n in tested)
        rows.append((name, label, [r for r, _ in results]))
    print(f"{len(people)} participants, {len(originals)} original streams ({trained} with features, the "
          f"attacker's training streams); per stream: each test stream alone; per participant: scores averaged "
          f"over all of a participant's test streams (one decision per participant); several repetitions: "
          f"mean (min–max); test streams: the released streams, i.e. those with at least one synthetic sample (in "
          f"brackets those without a feature window, scored as a uniform guess); the last two columns: the "
          f"streams with a feature window alone")
    print("| attack | test streams of originals (without features) | 1-NN per stream | 1-NN per participant | "
          "random forest per stream | random forest per participant | 1-NN per stream with features | "
          "random forest per stream with features |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, results in rows:
        print(f"| {name} | {n} | " + " | ".join(cell([r[i] for r in results]) for i in range(6)) + " |")


def attack(raw_path, releases_path, png):
    raw = load_raw(raw_path)
    test = [r for r in raw if r[2] == 2]
    x_test = np.array([r[3] for r in test])
    people = sorted({r[0] for r in raw})
    activities = sorted(set(ACTIVITY.values()))
    releases = {}
    for r in csv.DictReader(open(releases_path)):
        releases.setdefault((r["grouping"], int(r["k"]), int(r["rep"])), []).append(
            (r["participant"], r["task"], parse_array(r["features"])))
    rng = np.random.default_rng(2022)
    results = {}
    for (grouping, k, rep), rows in sorted(releases.items()):
        x_train = np.array([r[2] for r in rows])
        train, tst = standardise(x_train, x_test)
        who, act = [r[0] for r in rows], [ACTIVITY[r[1]] for r in rows]
        truth_who, truth_act = [r[0] for r in test], [ACTIVITY[r[1]] for r in test]
        s_nn = nn_scores(train, who, tst, people)
        s_rbf = rbf_scores(train, who, tst, people, rng=rng)
        a_nn = nn_scores(train, act, tst, activities)
        a_rbf = rbf_scores(train, act, tst, activities, rng=rng)
        results.setdefault((grouping, k), []).append((
            accuracy(s_nn, truth_who, people), accuracy(s_rbf, truth_who, people),
            per_participant(s_nn, truth_who, people),
            accuracy(a_nn, truth_act, activities, balanced=True),
            accuracy(a_rbf, truth_act, activities, balanced=True)))
    majority = max(sum(ACTIVITY[r[1]] == a for r in test) for a in activities) / len(test)
    n_train = sum(1 for r in raw if r[2] == 1)
    print(f"participants {len(people)} (chance of re-identification 1/{len(people)} = {100 / len(people):.1f} %); "
          f"raw windows: {n_train} released span, {len(test)} attacker's span; "
          f"activity classes way/shop (majority {100 * majority:.1f} %)")
    print()
    print("| grouping | k | releases | re-id 1-NN | re-id RBF | re-id 1-NN per person | activity 1-NN | activity RBF |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    summary = {}
    for key in sorted(results, key=lambda g: (g[0] != "raw", g[0], g[1])):
        m = np.array(results[key]).mean(axis=0) * 100
        summary[key] = m
        grouping, k = key
        print(f"| {GROUPING[grouping]} | {'-' if k == 1 else k} | {len(results[key])} | {m[0]:.1f} % | {m[1]:.1f} % | "
              f"{m[2]:.1f} % | {m[3]:.1f} % | {m[4]:.1f} % |")
    print()
    print("re-id: share of the attacker's raw windows (or, per person, of participants with their windows' scores "
          "averaged) attributed to the right participant, ties among identical released vectors split evenly; "
          "activity: balanced accuracy (chance 50 %). Means over the releases.")
    raw_m = summary[("raw", 1)]
    chance = 100 / len(people)
    for (grouping, k), m in summary.items():
        if k == 1:
            continue
        groups = len(people) // k
        bound = 100 * groups / len(people)  # mean of 1/|group| over participants: groups / N
        print(f"{GROUPING[grouping]}, k = {k}: re-identification {m[0] / chance:.2f}x chance per window (1-NN), "
              f"{m[2]:.1f} % per person (1-NN; an attacker who only learns each person's group gets "
              f"{bound:.1f} %); activity above chance kept: {100 * (m[3] - 50) / (raw_m[3] - 50):.0f} % (1-NN), "
              f"{100 * (m[4] - 50) / (raw_m[4] - 50):.0f} % (RBF)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        ks = [1] + sorted(k for g, k in summary if g == "across")
        row = lambda k: summary[("raw", 1)] if k == 1 else summary[("across", k)]
        fig, ax = plt.subplots(figsize=(6.4, 5.2))
        ax.plot(ks, [row(k)[0] for k in ks], "o-", label="re-identification, 1-NN")
        ax.plot(ks, [row(k)[1] for k in ks], "s-", label="re-identification, RBF network")
        ax.plot(ks, [row(k)[2] for k in ks], "^-", label="re-identification, 1-NN per person")
        per_task = [1] + sorted(k for g, k in summary if g == "task")
        ax.plot(per_task, [(summary[("raw", 1)] if k == 1 else summary[("task", k)])[2] for k in per_task], "^:",
                color="black", label="re-identification, 1-NN per person, per-task groupings (paper)")
        ax.plot(ks, [row(k)[3] for k in ks], "o--", label="activity (way/shop, balanced), 1-NN")
        ax.plot(ks, [row(k)[4] for k in ks], "s--", label="activity, RBF network")
        ax.axhline(100 / len(people), color="grey", lw=0.8, label=f"chance 1/{len(people)}")
        ax.set_xlabel("k (1 = raw data)")
        ax.set_ylabel("accuracy on raw data of the other span (%)")
        ax.set_ylim(0, 100)
        ax.set_title("k-same-select sequence, one grouping across tasks, Hoppe et al. features", fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
        fig.tight_layout()
        fig.savefig(png, dpi=120)
    except ImportError:
        print("(matplotlib missing: no plot)")


if __name__ == "__main__":
    if sys.argv[1] == "numpy-time":
        numpy_time(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "attack":
        attack(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "synth-attack":
        synth_attack(sys.argv[2])
    else:
        sys.exit(__doc__)
