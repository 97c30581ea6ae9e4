/**
 * The eval's chart writer: a self-contained SVG (no script, no external fonts or styles) of
 * recall@k per category (groups along the x axis) and search mode (one bar per mode in a group).
 * Each bar overlays three shades: recall@10 (lightest, full height), recall@5 and recall@1
 * (darkest), so the three cut-offs read from one bar. Values are 0..1; NaN (no data) draws no bar
 * and a "n/a" label. Output is deterministic for the same input, and every text is XML-escaped.
 */

export interface ChartSeries {
  name: string;
  /** Base colour as #rrggbb; the three shades are derived from it. */
  color: string;
}

export interface RecallChart {
  title: string;
  subtitle?: string;
  groups: readonly string[];
  series: readonly ChartSeries[];
  /** values[group][series] = recall at 1, 5 and 10. */
  values: readonly (readonly { r1: number; r5: number; r10: number }[])[];
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Mixes a #rrggbb colour with white: t = 0 keeps it, t = 1 is white. */
export function tint(color: string, t: number): string {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) throw new Error(`colour ${JSON.stringify(color)} is not #rrggbb`);
  const n = parseInt(m[1]!, 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => Math.round(c + (255 - c) * t));
  return `#${ch.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

const f = (n: number): string => (Math.round(n * 10) / 10).toString();

export function recallChartSvg(chart: RecallChart): string {
  if (chart.values.length !== chart.groups.length) throw new Error('one row of values per group');
  const barW = 18;
  const gap = 4;
  const groupGap = 26;
  const left = 44;
  const top = chart.subtitle ? 58 : 42;
  const plotH = 200;
  const groupW = chart.series.length * (barW + gap) - gap;
  // Wide enough for a category label under a one-bar group, and for the subtitle.
  const slot = Math.max(groupW + groupGap, 84);
  const width = Math.max(560, left + chart.groups.length * slot + 10);
  const legendY = top + plotH + 46;
  const height = legendY + 30;
  const y = (v: number) => top + plotH * (1 - Math.max(0, Math.min(1, v)));
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="600" fill="#111">${escapeXml(chart.title)}</text>`);
  if (chart.subtitle) out.push(`<text x="${left}" y="38" fill="#555">${escapeXml(chart.subtitle)}</text>`);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(`<line x1="${left}" x2="${width - 6}" y1="${f(y(t))}" y2="${f(y(t))}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${left - 6}" y="${f(y(t) + 4)}" text-anchor="end" fill="#666">${t.toFixed(2)}</text>`);
  }
  chart.groups.forEach((group, gi) => {
    const gx = left + 8 + gi * slot + (slot - groupGap - groupW) / 2;
    chart.series.forEach((s, si) => {
      const v = chart.values[gi]![si];
      const x = gx + si * (barW + gap);
      if (!v || Number.isNaN(v.r10)) {
        out.push(`<text x="${f(x + barW / 2)}" y="${f(y(0) - 4)}" text-anchor="middle" fill="#999" font-size="9">n/a</text>`);
        return;
      }
      const label = `${group} · ${s.name}: R@1 ${v.r1.toFixed(3)}, R@5 ${v.r5.toFixed(3)}, R@10 ${v.r10.toFixed(3)}`;
      out.push(`<g><title>${escapeXml(label)}</title>`);
      for (const [value, shade] of [[v.r10, 0.7], [v.r5, 0.4], [v.r1, 0]] as const) {
        if (Number.isNaN(value)) continue;
        out.push(`<rect x="${f(x)}" y="${f(y(value))}" width="${barW}" height="${f(y(0) - y(value))}" fill="${tint(s.color, shade)}"/>`);
      }
      out.push(`</g>`);
    });
    out.push(`<text x="${f(gx + groupW / 2)}" y="${top + plotH + 16}" text-anchor="middle" fill="#222">${escapeXml(group)}</text>`);
  });
  out.push(`<line x1="${left}" x2="${width - 6}" y1="${f(y(0))}" y2="${f(y(0))}" stroke="#888"/>`);
  let lx = left;
  for (const s of chart.series) {
    out.push(`<rect x="${lx}" y="${legendY - 9}" width="10" height="10" fill="${s.color}"/><text x="${lx + 14}" y="${legendY}" fill="#222">${escapeXml(s.name)}</text>`);
    lx += 24 + s.name.length * 7;
  }
  out.push(`<text x="${lx + 10}" y="${legendY}" fill="#555">bar shades, dark → light: recall@1, @5, @10</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
