// The cost concern's public face: worst-case pricing of a unit (its judges' calls too), the cost ceiling as an admit hook over
// any unit kind (--max-cost), and the records-based estimate (--estimate), shared by every protocol verb.
export * from "./ceiling.ts";
export * from "./estimate.ts";
export * from "./judge.ts";
export * from "./worst-case.ts";
