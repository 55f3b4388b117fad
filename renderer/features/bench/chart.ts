import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { Comparison } from '../../../src/common/bench/compare.js';
import { columnTitle, displayScale } from '../../../src/common/bench/format.js';
import { metricName, unitName } from './metricWords.js';

// One bar chart per metric of a comparison (chart.js, tree-shaken to bars only).

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

export function renderMetricChart(canvas: HTMLCanvasElement, c: Comparison, metricKey: string, previous?: Chart): Chart | undefined {
  previous?.destroy();
  const row = c.rows.find((r) => r.key === metricKey);
  if (!row) return undefined;
  const labels = c.columns.map(columnTitle);
  const colors = c.columns.map((_, i) => (i === c.baseline ? '#8b98a7' : '#3d8bfd'));
  const scale = displayScale(
    row.unit,
    row.cells.map((cell) => cell?.value ?? 0),
  );
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: `${metricName(row.label)} (${unitName(scale.unit)})`,
          data: row.cells.map((cell) => (cell ? cell.value / scale.factor : null)),
          backgroundColor: colors,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { labels: { color: '#dbe2ea' } }, tooltip: { enabled: true } },
      scales: {
        x: { ticks: { color: '#dbe2ea' }, grid: { color: '#2a3541' } },
        y: {
          beginAtZero: true,
          ticks: { color: '#8b98a7' },
          grid: { color: '#2a3541' },
          title: { display: true, text: unitName(scale.unit), color: '#8b98a7' },
        },
      },
    },
  });
}
