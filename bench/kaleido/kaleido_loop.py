"""The peer a researcher would write instead: the corrected Kaleido loop in plain Python (random module,
floating-point noise; not private), timed over the same real recordings. Prints samples per second.

Usage: kaleido_loop.py DATA_DIR
"""
import csv
import glob
import math
import random
import sys
import time


def load(data_dir):
    streams = {}
    for path in sorted(glob.glob(f"{data_dir}/hoppe2018_everyday/samples/participant_*.csv")):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                s = streams.setdefault(("hoppe", row["participant"]), ([], [], []))
                s[0].append(float(row["t_ms"]))
                s[1].append(float(row["x_norm"]) if row["x_norm"] else math.nan)
                s[2].append(float(row["y_norm"]) if row["y_norm"] else math.nan)
    return streams


def kaleido(t, x, y, eps=1.0, w=60, r=0.05, l_thresh=0.05, t_skip=50.0, h=2.0, max_tests=20):
    eps_test = eps / (h * max_tests)
    eps_pub_share = eps - eps / h
    n = len(t)
    spent_pub = [0.0] * n
    tested = [False] * n
    out_x, out_y = [math.nan] * n, [math.nan] * n
    px = py = math.nan
    test_t = None
    window_pub = 0.0
    tests = 0
    for i in range(n):
        if i >= w:
            window_pub -= spent_pub[i - w]
            tests -= tested[i - w]
        xi, yi = x[i], y[i]
        if xi == xi and yi == yi:  # not NaN
            publish = test_t is None
            if not publish and t[i] - test_t >= t_skip and tests < max_tests:
                test_t = t[i]
                tested[i] = True
                tests += 1
                u = random.random() - 0.5
                eta = -r / eps_test * math.copysign(math.log1p(-2 * abs(u)), u)
                publish = math.hypot(xi - px, yi - py) > l_thresh + eta
            if publish:
                if test_t is None:
                    test_t = t[i]
                e = (eps_pub_share - window_pub) / 2
                rho = -(math.log(1 - random.random()) + math.log(1 - random.random())) * r / e
                theta = 2 * math.pi * random.random()
                px, py = xi + rho * math.cos(theta), yi + rho * math.sin(theta)
                spent_pub[i] = e
                window_pub += e
        out_x[i], out_y[i] = px, py
    return out_x, out_y


def main():
    streams = load(sys.argv[1])
    n = sum(len(s[0]) for s in streams.values())
    best = math.inf
    for _ in range(2):
        start = time.perf_counter()
        for t, x, y in streams.values():
            kaleido(t, x, y)
        best = min(best, time.perf_counter() - start)
    print(f"{n} {best:.3f} {n / best / 1e6:.2f}")


if __name__ == "__main__":
    main()
