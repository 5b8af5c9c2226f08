// Rounding helpers for verifier authors: half away from zero, half even, and to a step (minutes,
// cents, quarter points) in a chosen direction. Each reads the scaled value at 15 significant digits
// first, so a decimal tie that binary cannot hold exactly (2.345 is 2.34499999...) is still a tie.

export type StepRounding = "half-up" | "half-away" | "half-even" | "up" | "down";

/** x at 15 significant digits: the decimal it was meant to be. */
function decimal(x: number): number {
  return Number(x.toPrecision(15));
}

function noNegativeZero(x: number): number {
  return x === 0 ? 0 : x;
}

/** An integer from a real number under `mode` ("half-up" breaks ties towards +infinity). */
function toInteger(n: number, mode: StepRounding): number {
  switch (mode) {
    case "up":
      return Math.ceil(n);
    case "down":
      return Math.floor(n);
    case "half-up":
      return Math.floor(n + 0.5);
    case "half-away":
      return Math.sign(n) * Math.floor(Math.abs(n) + 0.5);
    case "half-even": {
      const floor = Math.floor(n);
      const diff = n - floor;
      if (diff !== 0.5) return Math.round(n);
      return floor % 2 === 0 ? floor : floor + 1;
    }
  }
}

/** Half away from zero at `decimals` (2.345 -> 2.35, -2.345 -> -2.35). */
export function roundHalfAway(value: number, decimals = 0): number {
  const f = 10 ** decimals;
  return noNegativeZero(toInteger(decimal(value * f), "half-away") / f);
}

/** Half to even ("banker's rounding") at `decimals` (0.125 -> 0.12, 0.135 -> 0.14). */
export function roundHalfEven(value: number, decimals = 0): number {
  const f = 10 ** decimals;
  return noNegativeZero(toInteger(decimal(value * f), "half-even") / f);
}

/**
 * The multiple of `step` (> 0) that `mode` picks: "up" (ceiling), "down" (floor), or the nearest
 * with ties broken "half-up" (towards +infinity, e.g. a punch to the later mark), "half-away" or
 * "half-even". roundToStep(447, 6, "half-up") = 450; roundToStep(0.37, 0.25, "up") = 0.5.
 */
export function roundToStep(value: number, step: number, mode: StepRounding): number {
  if (!(step > 0)) throw new RangeError(`step must be positive, got ${step}`);
  return noNegativeZero(decimal(toInteger(decimal(value / step), mode) * step));
}
