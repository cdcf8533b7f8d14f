"""Paired timing rounds: the suite's speedups as medians of per-round ratios.

A best-of-5 of separately timed rounds decides a verdict on the luckiest 50 ms of each
function: on a machine other processes load, one lucky NumPy round against unlucky
compiled ones made an entry that runs NumPy's own code (a retired one: both columns time
the same code) look 0.47x NumPy. Here instead:

- each round times NumPy and every system back to back, each over calls until
  ``min_seconds`` have passed (``timed_round``), so load that comes and goes within a
  round hits the two sides of a ratio alike. Rounds are as long for every function: the
  count of calls a round once made was fixed from calibration calls, which beside busy
  processes were off by up to 250x (the small mlp_forward: NumPy 4 calls a round, 0.2 ms,
  its twin 1072, 207 ms), and a short round meets a machine other processes have not yet
  taken back (48 us a call against the same code's 193 us: 0.26x for identical code);
- the order turns from round to round through every rotation of the functions and of
  their reverse (``round_orders``), so no function always has the same slot or always
  follows the same other one, and each function's timed calls follow one untimed call of
  it: a function's thread pools spin
  after its calls (libgomp's after torch.compile's kernels, OpenBLAS's after a product),
  and with NumPy first in even rounds and last in odd ones, npcompile, the middle of
  three, followed torch.compile in every odd round and paid for its threads (mlp_forward,
  an entry run as written: 5.5 ms against NumPy's 4.4 with torch.compile in the rounds,
  4.5 without);
- a system's speedup is the **median of its per-round ratios** (NumPy's time / its
  time in the same round): a round that load hit on one side only moves it by one rank;
- a function's per-call time is its median round (what a user typically waits, wall
  clock by default), so the speedup shown is not exactly the ratio of the two times;
- after ``repeats`` rounds, more are timed (up to ``max_rounds``) while a speedup's
  distribution-free confidence interval for the median (order statistics of the
  ratios, ``confidence``) still holds the bar, i.e. while the rounds have not yet
  decided whether the system is slower than NumPy by more than the bar allows.
"""
import math
import statistics


def median_interval(values, confidence):
    """``(low, high)``: order statistics ``k`` and ``n + 1 - k`` of ``values``, with
    ``k`` the largest for which the interval holds the median with ``confidence``
    (binomial: each value lies below the median with probability 1/2); the whole range
    when even that falls short (five values cover the median 94% of the time)."""
    ordered = sorted(values)
    n = len(ordered)
    k, below = 1, 1 / 2 ** n              # below: P(fewer than k values below the median)
    while k < (n + 1) // 2:
        below_next = below + math.comb(n, k) / 2 ** n
        if 1 - 2 * below_next < confidence:
            break
        k, below = k + 1, below_next
    return ordered[k - 1], ordered[n - k]


def round_orders(names):
    """The orders rounds take in turn: each rotation of ``names``, then each of its
    reverse (for NumPy and one system: NumPy first, then last, then last, then first)."""
    back = names[::-1]
    return [names[i:] + names[:i] for i in range(len(names))] + [back[i:] + back[:i] for i in range(len(back))]


#: The share of ``min_seconds`` each function's per-call time is estimated over.
ESTIMATE_SHARE = 0.1


def calls_per_round(functions, args, clock, min_seconds):
    """How many calls of each function last ``min_seconds``, each function's per-call time
    taken over the calls one timed call says last ``ESTIMATE_SHARE`` of it: an estimate that
    sizes the batches of ``timed_round`` (a round's length is the clock's). One timed call
    was a sample of one: a slow first call (a speed trial's compiled run, threads of the
    function before still spinning) gave mlp_forward's npcompile 138 calls a round against
    NumPy's 286 for the same 60 us call, and a round half as long is hit twice as hard by
    the previous function's spinning threads (86-114 us after torch.compile's rounds,
    51-69 us after NumPy's)."""
    numbers = {}
    for name, fn in functions.items():
        start = clock()
        fn(*args)
        guess = max(1, math.ceil(ESTIMATE_SHARE * min_seconds / max(clock() - start, 1e-7)))
        start = clock()
        for _ in range(guess):
            fn(*args)
        numbers[name] = max(1, math.ceil(min_seconds * guess / max(clock() - start, 1e-7)))
    return numbers


#: A round reads the clock about this many times (after batches of calls, sized from the
#: calibration): a read per call would add its ~50 ns to every call timed.
ROUND_CHECKS = 50


def timed_round(fn, args, clock, seconds, batch):
    """Per-call seconds of ``fn`` over batches of ``batch`` calls until ``seconds`` have
    passed, after one untimed call (the previous function's threads may still spin)."""
    fn(*args)
    calls, start = 0, clock()
    while True:
        for _ in range(batch):
            fn(*args)
        calls += batch
        elapsed = clock() - start
        if elapsed >= seconds:
            return elapsed / calls


def paired_rounds(functions, args, timing, clock, reference="numpy", bar=1 / 1.10):
    """Time ``functions`` (name -> warm fn; ``reference`` among them) in paired rounds
    (module docstring). Returns ``{"seconds": {name: median per-call seconds},
    "speedup": {name: median ratio}, "interval": {name: [low, high]}, "rounds": n}``,
    speedups for every function but the reference."""
    numbers = calls_per_round(functions, args, clock, timing.min_seconds)
    orders = round_orders(list(functions))
    rounds = {name: [] for name in functions}
    while True:
        count = len(rounds[reference])
        for name in orders[count % len(orders)]:
            batch = max(1, numbers[name] // ROUND_CHECKS)
            rounds[name].append(timed_round(functions[name], args, clock, timing.min_seconds, batch))
        if count + 1 < timing.repeats:
            continue
        ratios = {name: [r / max(s, 1e-12) for r, s in zip(rounds[reference], times)]
                  for name, times in rounds.items() if name != reference}
        intervals = {name: median_interval(values, timing.confidence) for name, values in ratios.items()}
        undecided = any(low <= bar <= high for low, high in intervals.values())
        if not undecided or count + 1 >= timing.max_rounds:
            break
    return {"seconds": {name: statistics.median(times) for name, times in rounds.items()},
            "speedup": {name: statistics.median(values) for name, values in ratios.items()},
            "interval": {name: list(interval) for name, interval in intervals.items()},
            "rounds": count + 1}
