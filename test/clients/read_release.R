# An analyst reads its releases from R with RPostgreSQL (libpq settings PGHOST, PGPORT, PGDATABASE, PGUSER).
library(DBI)
library(RPostgreSQL)
con <- dbConnect(PostgreSQL(), host = Sys.getenv("PGHOST"), port = Sys.getenv("PGPORT"),
                 dbname = Sys.getenv("PGDATABASE"), user = Sys.getenv("PGUSER"))
cells <- dbGetQuery(con, "SELECT ledger_id, x, y, value FROM gazepriv.my_heatmap_cells ORDER BY y, x")
counts <- dbGetQuery(con, "SELECT ledger_id, count, noise_scale FROM gazepriv.my_released_counts")
budgets <- dbGetQuery(con, "SELECT dataset, role, kind, epsilon_remaining FROM gazepriv.my_budgets")
cat("cells", nrow(cells), "value", class(cells$value), "\n")
cat("counts", nrow(counts), "\n")
cat("budget", budgets$dataset[1], budgets$role[1], class(budgets$role), "\n")
invisible(dbDisconnect(con))
