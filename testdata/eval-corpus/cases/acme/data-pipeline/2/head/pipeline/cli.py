"""Command line: python -m pipeline.cli EXPORT.csv loads one nightly export."""

import sys

import psycopg

from pipeline.load import load, read_orders


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python -m pipeline.cli EXPORT.csv\n")
        return 2
    rows = read_orders(argv[1])
    with psycopg.connect() as conn:
        load(conn, rows)
    print(f"loaded {len(rows)} orders from {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
