# An analyst reads its releases with psycopg2 and pandas: the libpq settings (PGHOST, PGPORT, PGDATABASE,
# PGUSER) say where. The release is made once; reading it again, as often as a dashboard refreshes, is free.
import pandas as pd
import psycopg2

conn = psycopg2.connect("")
conn.autocommit = True
with conn.cursor() as cur:
    cur.execute("SELECT (gazepriv.release_heatmap(%s, %s, gazepriv.heatmap_spec(640, 480, 1.0, cell_size => 32))).n",
                ("gaze", 1))
cells = pd.read_sql("SELECT ledger_id, x, y, value, epsilon FROM gazepriv.my_heatmap_cells", conn)
grid = cells.pivot_table(index="y", columns="x", values="value")  # one row per cell row of the map
budgets = pd.read_sql("SELECT dataset, role, kind, epsilon_spent, epsilon_remaining FROM gazepriv.my_budgets", conn)
ledger = pd.read_sql("SELECT id, at, mechanism, epsilon FROM gazepriv.my_ledger ORDER BY id", conn)
print("cells", len(cells), "grid", grid.shape, "value dtype", cells["value"].dtype)
print("budget", budgets.loc[0, "dataset"], budgets.loc[0, "role"], budgets.loc[0, "kind"])
print("charges", len(ledger))
