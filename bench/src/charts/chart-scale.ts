// Linear scales with round-number ticks: a value's position on an axis, and the labels a reader sees there.

export interface LinearScale {
  /** The domain after rounding out to whole ticks. */
  min: number;
  max: number;
  ticks: number[];
  /** Pixel position of a value: min maps to range[0], max to range[1]. */
  at(value: number): number;
}

/** 1, 2 or 5 times a power of ten, the smallest at least `rough`. */
export function niceStep(rough: number): number {
  if (!(rough > 0) || !Number.isFinite(rough)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const mantissa = rough / power;
  return (mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10) * power;
}

/** A scale over [min, max] (widened to whole steps of about `tickCount` ticks) onto the pixel range. */
export function linearScale(
  dataMin: number,
  dataMax: number,
  range: readonly [number, number],
  tickCount = 5,
): LinearScale {
  let low = Number.isFinite(dataMin) ? dataMin : 0;
  let high = Number.isFinite(dataMax) ? dataMax : 1;
  if (high <= low) high = low === 0 ? 1 : low + Math.abs(low) * 0.5;
  const step = niceStep((high - low) / tickCount);
  low = Math.floor(low / step + 1e-9) * step;
  high = Math.ceil(high / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let tick = low; tick <= high + step / 2; tick += step) ticks.push(Math.round(tick / step) * step);
  const [from, to] = range;
  return {
    min: low,
    max: high,
    ticks,
    at: (value) => from + ((value - low) / (high - low)) * (to - from),
  };
}

/** Tick labels: 12k, 1.5k, 250, 2.5, 0.25. */
export function formatTick(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1000) return `${trim(value / 1000)}k`;
  return trim(value);
}

const trim = (value: number): string => String(Math.round(value * 100) / 100);
