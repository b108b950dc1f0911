"""Make a workload's input by hand: `python -m parbench.inputs sdes-ecb --size 1048576`."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from parbench.inputs import batch_docs, sdes_text


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m parbench.inputs")
    sub = parser.add_subparsers(dest="workload", required=True)
    sdes = sub.add_parser("sdes-ecb", help="the title.basics-shaped text")
    sdes.add_argument("--size", type=int, required=True)
    sdes.add_argument("--seed-article", action="store_true", help="the article's four-line text")
    batch = sub.add_parser("batch-job", help="documents, a fresh database copy, the expected digest")
    batch.add_argument("--docs", type=int, default=16)
    batch.add_argument("--text-length", type=int, default=400)
    batch.add_argument("--annotations", type=int, default=20)
    args = parser.parse_args()
    if args.workload == "sdes-ecb":
        path = sdes_text.ensure_seed_article_text() if args.seed_article else sdes_text.ensure(args.size)
        print(path)
    else:
        prepared = batch_docs.ensure(args.docs, args.text_length, args.annotations)
        copy = Path(tempfile.mkdtemp(prefix="parbench-batch-")) / "job.sqlite"
        batch_docs.fresh_sqlite_copy(prepared, copy)
        print(f"--docs-dir {prepared.docs_dir} --db sqlite:{copy}")
        print(f"expected checksum {prepared.expected_checksum}")


if __name__ == "__main__":
    main()
