"""Write the README's example files: datasets/examples/ and tests/fixtures/lm-eval-tasks/.

Synthetic runs with known gaps, made by a seeded generator so that they can be
remade exactly: python3 tests/make_examples.py (from anywhere).
"""
import csv, json, os, random

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
ex = os.path.join(top, "datasets", "examples")
os.makedirs(ex, exist_ok=True)
rng = random.Random(20261201)
subjects = ["algebra", "biology", "history"]

def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")

# 240 questions, 6 per passage, three subjects; four systems
n = 240
skill = [rng.gauss(0, 1) for _ in range(n)]
def system(shift, lat):
    rows = []
    for i in range(n):
        p = 1 / (1 + 2.718281828 ** -(0.6 + shift + 1.4 * skill[i]))
        rows.append({"id": f"q{i:03d}", "subject": subjects[i % 3],
                     "passage_id": f"p{i // 6:02d}",
                     "acc": int(rng.random() < p),
                     "latency": round(rng.lognormvariate(lat, 0.3), 1)})
    return rows
for name, shift, lat in (("base", 0.0, 5.5), ("cand", 0.35, 5.45),
                         ("cand2", -0.45, 5.3), ("cand3", 0.9, 5.7)):
    write_jsonl(os.path.join(ex, name + ".jsonl"), system(shift, lat))

# a tagger: gold label, each run's prediction, tokens right of total
labels = [int(rng.random() < 0.4) for _ in range(n)]
for name, err in (("tagger-base", 0.22), ("tagger-cand", 0.16)):
    rows = []
    for i in range(n):
        pred = labels[i] if rng.random() > err else 1 - labels[i]
        total = rng.randint(8, 40)
        right = min(total, int(total * rng.uniform(1 - 2 * err, 1.0)))
        rows.append({"id": f"s{i:03d}", "label": labels[i],
                     "prediction": pred, "right": right, "total": total})
    write_jsonl(os.path.join(ex, name + ".jsonl"), rows)

# code: 40 problems, 8 samples each, passed 0/1 (records share task_id)
hard = [rng.random() for _ in range(40)]
for name, boost in (("code-base", 0.0), ("code-cand", 0.12)):
    rows = []
    for t in range(40):
        for s in range(8):
            rows.append({"task_id": f"HumanEval/{t}", "sample": s,
                         "passed": rng.random() < min(1, hard[t] + boost)})
    write_jsonl(os.path.join(ex, name + ".jsonl"), rows)

# one wide CSV: gold and two systems' predictions
with open(os.path.join(ex, "preds.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "gold", "pred_a", "pred_b"])
    for i in range(n):
        g = labels[i]
        a = g if rng.random() > 0.2 else 1 - g
        b = g if rng.random() > 0.15 else 1 - g
        w.writerow([f"s{i:03d}", g, a, b])

# records under a key: {"results": {"items": [...]}}
for name in ("base", "cand"):
    with open(os.path.join(ex, name + ".jsonl")) as f:
        rows = [json.loads(line) for line in f]
    doc = {"model": name, "results": {"items": [
        {"id": r["id"], "acc": r["acc"]} for r in rows]}}
    with open(os.path.join(ex, "nested-" + name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)

# lm-evaluation-harness run folders: three MMLU tasks per model
fx = os.path.join(top, "tests", "fixtures", "lm-eval-tasks")
tasks = ["mmlu_anatomy", "mmlu_astronomy", "mmlu_virology"]
for model, date, shift in (("model-a", "2025-01-10T09-12-44.120331", 0.0),
                           ("model-b", "2025-01-11T17-40-02.958113", 0.08)):
    d = os.path.join(fx, model)
    os.makedirs(d, exist_ok=True)
    results = {}
    for k, task in enumerate(tasks):
        rows, right = [], 0
        for i in range(30):
            p = 0.55 + 0.1 * k + shift - 0.3 * (i % 5 == 0)
            acc = float(rng.random() < p)
            right += acc
            rows.append({"doc_id": i, "doc": {"question": f"{task} q{i}",
                         "choices": ["A", "B", "C", "D"], "answer": i % 4},
                         "target": i % 4,
                         "arguments": {"gen_args_0": {"arg_0": "Q",
                                                      "arg_1": " A"}},
                         "resps": [[["-1.2", "False"]]],
                         "filtered_resps": [["-1.2", "False"]],
                         "filter": "none", "metrics": ["acc"],
                         "doc_hash": "h", "prompt_hash": "p",
                         "target_hash": "t", "acc": acc})
        write_jsonl(os.path.join(d, f"samples_{task}_{date}.jsonl"), rows)
        results[task] = {"alias": task, "acc,none": right / 30,
                         "acc_stderr,none": 0.09}
    with open(os.path.join(d, f"results_{date}.json"), "w") as f:
        json.dump({"results": results,
                   "configs": {t: {"task": t} for t in tasks},
                   "versions": {t: 1.0 for t in tasks},
                   "n-shot": {t: 0 for t in tasks}}, f, indent=2)

# pairwise preferences (tests/fixtures/preferences/): Chatbot Arena
# battles among four systems of known Elo ratings, a plain CSV of battles,
# and Arena-Hard judgments of one model against the baseline
pf = os.path.join(top, "tests", "fixtures", "preferences")
os.makedirs(pf, exist_ok=True)
elo = {"alpha-7b": 1100, "beta-13b": 1050, "gamma-2b": 1000, "delta-1b": 900}
names = list(elo)
battles = []
for k in range(400):
    a, b = rng.sample(names, 2)
    p_b = 1 / (1 + 10 ** ((elo[a] - elo[b]) / 400))
    u = rng.random()
    winner = ("tie" if u < 0.1 else "tie (bothbad)" if u < 0.15 else
              "model_b" if rng.random() < p_b else "model_a")
    battles.append({"model_a": a, "model_b": b, "winner": winner,
                    "judge": f"arena_user_{k % 37}", "turn": 1,
                    "anony": True, "language": "English",
                    "tstamp": 1700000000.0 + 60 * k,
                    "question_id": f"q{k:04d}"})
with open(os.path.join(pf, "battles.json"), "w") as f:
    json.dump(battles, f, indent=1)
with open(os.path.join(pf, "battles.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["model_a", "model_b", "winner"])
    for r in battles[:120]:
        w.writerow([r["model_a"], r["model_b"],
                    {"model_a": r["model_a"], "model_b": r["model_b"]}.get(
                        r["winner"], "tie")])
verdicts = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
with open(os.path.join(pf, "arena-hard-model-x.jsonl"), "w") as f:
    for q in range(30):
        games = []
        for g in range(2):
            model_better = rng.random() < 0.6
            score = (None if rng.random() < 0.04 else
                     rng.choice(verdicts[3:] if model_better != bool(g)
                                else verdicts[:2]) if rng.random() > 0.2
                     else "A=B")
            games.append({"user_prompt": "...", "judgment": "...",
                          "score": score})
        f.write(json.dumps({"question_id": f"{q:032x}", "model": "model-x",
                            "judge": "gpt-4-1106-preview",
                            "category": "hard_prompt", "games": games})
                + "\n")

# MT-Bench pairwise judgments: 80 questions, two turns each, a judge that
# favours the first position
with open(os.path.join(pf, "mt-bench-pair.jsonl"), "w") as f:
    for q in range(81, 161):
        for turn in (1, 2):
            better = rng.random() < 0.58      # model_2's answer is better
            games = []
            for g in (1, 2):                  # g2: the positions swapped
                first = "model_1" if g == 1 else "model_2"
                second = "model_2" if g == 1 else "model_1"
                u = rng.random()
                games.append("tie" if u < 0.15 else first if u < 0.35 else
                             ("model_2" if better else "model_1"))
                if games[-1] == second and rng.random() < 0.1:
                    games[-1] = "error"
            f.write(json.dumps({
                "question_id": q, "model_1": "vicuna-13b-v1.3",
                "model_2": "llama-2-13b-chat", "g1_winner": games[0],
                "g2_winner": games[1], "judge": ["gpt-4", "pair-v2"
                                                 + "-multi-turn" * (turn == 2)],
                "turn": turn, "tstamp": 1687000000.0 + q}) + "\n")

# A judged eval: 2,000 questions, a judge's 0/1 verdict on every answer and
# a human's on 200 drawn at random (the same for both runs).  The truth:
# A right 70% of the time, B 74%; the judge passes 9 right answers in 10
# and half the wrong ones when they are long, 1 in 20 when short, and B
# writes long answers 70% of the time to A's 20%: as judged B gains about
# nine points, four of them the judge's taste for length.
judged = random.Random(20261203)
labelled = set(judged.sample(range(2000), 200))
for name, acc, long_share in (("judged-base", 0.70, 0.2),
                              ("judged-cand", 0.74, 0.7)):
    rows = []
    for i in range(2000):
        right = judged.random() < acc
        long = judged.random() < long_share
        row = {"id": f"q{i:04d}",
               "words": judged.randint(180, 400) if long
               else judged.randint(30, 120),
               "judge": int(judged.random() < (0.9 if right else
                                               0.5 if long else 0.05))}
        if i in labelled:
            row["human"] = int(right)
        rows.append(row)
    write_jsonl(os.path.join(ex, name + ".jsonl"), rows)

# Several runs of each system (temperature > 0): 400 questions, three runs
# of each, every answer drawn afresh in each run from the question's
# chance of being right (B's 2 points higher), so that one run's accuracy
# moves by about 2 points from run to run.
seeds = random.Random(37)
chance = [seeds.random() for _ in range(400)]
for name, shift in (("base", 0.0), ("cand", 0.02)):
    folder = os.path.join(ex, "runs", name)
    os.makedirs(folder, exist_ok=True)
    for run in range(1, 4):
        write_jsonl(os.path.join(folder, f"run{run}.jsonl"), [
            {"id": f"q{i:03d}", "acc": int(seeds.random() < min(1, p + shift))}
            for i, p in enumerate(chance)])

# A judge's pairwise verdicts with a human's on some of them: AlpacaEval
# annotations of 500 instructions (base against cand), the judge's on all
# and a human's on a random 100.  The humans prefer cand about half the
# time; the judge agrees with them 80% of the time and turns a third of
# its remaining losses for cand into wins: as judged cand wins about 60%.
verdicts = random.Random(20261204)
asked = set(verdicts.sample(range(500), 100))
judge, human = [], []
for i in range(500):
    truth = verdicts.random() < 0.5
    said = truth if verdicts.random() < 0.8 else not truth
    if not said and verdicts.random() < 0.35:
        said = True
    row = {"instruction": f"instruction {i:03d}", "output_1": "...",
           "generator_1": "base", "output_2": "...", "generator_2": "cand",
           "annotator": "judge", "preference": 2.0 if said else 1.0}
    judge.append(row)
    if i in asked:
        human.append(dict(row, annotator="human",
                          preference=2.0 if truth else 1.0))
for name, rows in (("prefs-judge.json", judge), ("prefs-human.json", human)):
    with open(os.path.join(ex, name), "w") as f:
        json.dump(rows, f, indent=0)
        f.write("\n")
