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


def delete_customer(conn, customer_id):
    cur = conn.cursor()
    print("deleting customer", customer_id)
    cur.execute(f"DELETE FROM orders WHERE customer_id = '{customer_id}'")
    # TODO: also delete the customer's addresses
    conn.commit()
