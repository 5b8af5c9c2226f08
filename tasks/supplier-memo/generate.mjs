// Data generator of supplier-memo: the quotes of eight suppliers for one machined part, written as
// environment/quotes.csv. Run: node generate.mjs <folder> (kgate check reruns it and compares bytes).
import { writeFileSync } from "node:fs";
import path from "node:path";

const QUOTES = [
  // supplier, country, unit_price, freight_per_shipment, units_per_shipment, lead_time_days, defect_rate_pct
  ["Halvorsen Castings", "NO", "11.80", "420", "600", "35", "1.1"],
  ["Brightline Components", "US", "12.95", "180", "600", "12", "0.8"],
  ["Quanzhou Precision", "CN", "10.40", "900", "600", "42", "2.6"],
  ["Marlow & Sons", "GB", "12.10", "540", "600", "18", "1.4"],
  ["Tecnoforma", "MX", "12.40", "300", "600", "16", "1.9"],
  ["Ostrava Metalwerk", "CZ", "11.20", "780", "400", "28", "1.2"],
  ["Pinecrest Supply", "US", "13.60", "120", "600", "9", "0.5"],
  ["Sahin Dokum", "TR", "10.90", "660", "600", "30", "2.3"],
];

const header =
  "supplier,country,unit_price,freight_per_shipment,units_per_shipment,lead_time_days,defect_rate_pct";
const csv = [header, ...QUOTES.map((q) => q.map((v) => (v.includes(",") ? `"${v}"` : v)).join(","))].join(
  "\n",
);
writeFileSync(path.join(process.argv[2], "quotes.csv"), `${csv}\n`);
