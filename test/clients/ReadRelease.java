// An analyst reads its releases over JDBC (what Metabase, Tableau and Grafana use): every column of the
// gazepriv.my_* views is a base type (getString, getLong, getInt, getDouble, getBigDecimal, getTimestamp).
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;

public class ReadRelease {
    public static void main(String[] args) throws SQLException {
        // args[0]: e.g. jdbc:postgresql://127.0.0.1:5432/gaze?user=alice
        try (Connection c = DriverManager.getConnection(args[0]); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery(
                    "SELECT dataset, role, kind, epsilon_remaining, releases FROM gazepriv.my_budgets")) {
                while (r.next())
                    System.out.printf("budget %s %s %s %d%n", r.getString(1), r.getString(2), r.getString(3),
                                      r.getLong(5));
            }
            try (ResultSet r = s.executeQuery(
                    "SELECT ledger_id, x, y, value FROM gazepriv.my_heatmap_cells ORDER BY ledger_id, y, x")) {
                int cells = 0;
                double sum = 0;
                while (r.next()) {
                    cells++;
                    sum += r.getDouble("value");
                }
                System.out.printf("cells %d%n", cells);
            }
            // No column arrives as an opaque object (Types.OTHER, STRUCT): a BI tool reads them all.
            String[] views = {"my_datasets", "my_release_policies", "my_budgets", "my_ledger", "my_releases",
                              "my_release_rows", "my_released_counts", "my_heatmap_cells", "my_series_points",
                              "my_kaleido_points"};
            int opaque = 0;
            for (String view : views) {
                try (ResultSet r = s.executeQuery("SELECT * FROM gazepriv." + view + " LIMIT 0")) {
                    ResultSetMetaData m = r.getMetaData();
                    for (int i = 1; i <= m.getColumnCount(); i++) {
                        int t = m.getColumnType(i);
                        if (t == Types.OTHER || t == Types.STRUCT || t == Types.JAVA_OBJECT) {
                            System.out.printf("opaque %s.%s %s%n", view, m.getColumnName(i), m.getColumnTypeName(i));
                            opaque++;
                        }
                    }
                }
            }
            System.out.printf("opaque columns %d%n", opaque);
        }
    }
}
