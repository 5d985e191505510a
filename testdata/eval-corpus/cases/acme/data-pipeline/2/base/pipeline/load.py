"""Loads nightly order exports into the warehouse."""

import csv


def read_orders(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load(conn, rows):
    cur = conn.cursor()
    for row in rows:
        cur.execute(
            "INSERT INTO orders (id, total) VALUES (%s, %s)",
            (row["id"], row["total"]),
        )
    conn.commit()
