// Draws the dashboard's charts with Chart.js from the JSON the page embeds. Without JavaScript
// (or if this fails) the tables under each chart stay open and say the same.
document.addEventListener('DOMContentLoaded', () => {
  const source = document.getElementById('dashboard-data');
  if (!source || !window.Chart) return;
  const colors = ['#2f5bd3', '#0e9384', '#dc6803', '#c11574', '#6938ef', '#667085'];
  for (const chart of JSON.parse(source.textContent)) {
    const canvas = document.getElementById(`chart-${chart.id}`);
    if (!canvas) continue;
    new window.Chart(canvas, {
      type: chart.kind,
      data: {
        labels: chart.rows.map((row) => row[0]),
        datasets: chart.series.map((name, i) => ({
          label: name,
          data: chart.rows.map((row) => row[i + 1]),
          backgroundColor: chart.kind === 'bar' ? colors : colors[i],
          borderColor: colors[i],
          tension: 0.25,
        })),
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
