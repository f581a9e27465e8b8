// Draws the dashboard's charts with Chart.js from the JSON the page embeds. Without JavaScript
// (or if this fails) the tables under each chart stay open and say the same.
document.addEventListener('DOMContentLoaded', () => {
  const source = document.getElementById('dashboard-data');
  if (!source || !window.Chart) return;
  // Colours mean the same everywhere: app.css defines them once (--status-*, --priority-*,
  // --series-*) for the list's badges and for these charts.
  const css = getComputedStyle(document.documentElement);
  const colorOf = (kind, name) => css.getPropertyValue(`--${kind}-${String(name).toLowerCase().replace(/\s+/g, '-')}`).trim() || css.getPropertyValue('--series-other').trim();
  for (const chart of JSON.parse(source.textContent)) {
    const canvas = document.getElementById(`chart-${chart.id}`);
    if (!canvas) continue;
    new window.Chart(canvas, {
      type: chart.kind,
      data: {
        labels: chart.rows.map((row) => row[0]),
        datasets: chart.series.map((name, i) => {
          const color = chart.colorBy === 'series' ? colorOf('series', name) : chart.rows.map((row) => colorOf(chart.colorBy, row[0]));
          return { label: name, data: chart.rows.map((row) => row[i + 1]), backgroundColor: color, borderColor: color, tension: 0.25 };
        }),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: chart.series.length > 1 } },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    canvas.hidden = false;
    // The chart says it now; its table stays one click away.
    const table = canvas.closest('.chart')?.querySelector('details');
    if (table) table.open = false;
  }
});
