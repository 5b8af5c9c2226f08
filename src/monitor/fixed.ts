// Fixed-point formatting that rounds exact ties to even, as the battery's published tables do
// (Python's format), where JavaScript's toFixed would round them away from zero (3.125 -> 3.13); and
// the way Python prints a float rounded with round(x, digits).

export function toFixedHalfEven(value: number, digits: number): string {
  const plain = value.toFixed(digits);
  // Doubles that end exactly in a 5 one place further are exact in a long toFixed expansion.
  const long = Math.abs(value).toFixed(Math.min(100, digits + 40));
  const rest = long.slice(long.indexOf(".") + 1 + digits);
  if (!/^50*$/.test(rest)) return plain;
  const down = (Math.sign(value) * Math.trunc(Math.abs(value) * 10 ** digits)) / 10 ** digits;
  const lastDigit = Number(down.toFixed(digits).replace(/\D/g, "").slice(-1));
  return lastDigit % 2 === 0 ? down.toFixed(digits) : plain;
}

/** What Python prints for round(value, digits): the half-even rounding without trailing zeros (9.5, 0.93, -1.0). */
export function roundedRepr(value: number, digits: number): string {
  const fixed = toFixedHalfEven(value, digits);
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, ".0") : `${fixed}.0`;
}
