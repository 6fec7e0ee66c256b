"""Count the answers per choice and write out/report.html."""

import csv
from collections import Counter
from pathlib import Path

answers = Counter(row["choice"] for row in csv.DictReader(open("data/answers.csv")))
Path("out").mkdir(exist_ok=True)
rows = "".join(f"<tr><td>{c}</td><td>{n}</td></tr>" for c, n in answers.most_common())
Path("out/report.html").write_text(f"<table>{rows}</table>\n")
