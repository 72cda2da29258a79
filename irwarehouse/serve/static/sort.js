// Sortable tables: a click on a column head sorts by it (numbers by their full value), a
// second click reverses. No network, no inline script (the page's Content-Security-Policy).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var down = th.dataset.dir !== "desc";
        th.dataset.dir = down ? "desc" : "asc";
        function key(row) {
          var cell = row.cells[col];
          if (cell.dataset.v !== undefined) { return parseFloat(cell.dataset.v); }
          return cell.textContent.trim();
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var numeric = typeof x === "number" && typeof y === "number";
          var c = numeric ? (isNaN(x) ? -1 : isNaN(y) ? 1 : x - y) : String(x).localeCompare(String(y));
          return down ? -c : c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
});
