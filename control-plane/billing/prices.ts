// What pay as you go charges for: one billable quantity per kind of usage and twin (a Stripe
// twin-hour, a GitHub AI generation…), each a metered price on its own meter at the payment
// processor, so the draft invoice has one line per quantity and each line names its twin.

export type UsageKind = 'twin_hours' | 'ai_generations';

/** USD cents per unit. */
export const UNIT_PRICE_CENTS: Record<UsageKind, number> = {
  twin_hours: 5,
  ai_generations: 20,
};

/** A twin-hour: each started hour a twin runs counts once. */
export const TWIN_HOUR_MS = 3_600_000;

export interface BillableQuantity {
  kind: UsageKind;
  /** Twin slug (`stripe`, `github`, …). */
  twin: string;
}

/** Stable name of a quantity (map keys, Stripe lookup keys, meter event names). */
export function quantityKey(q: BillableQuantity): string {
  return `twins_${q.kind}_${q.twin.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`;
}

/** The meter's event name at the processor. */
export const meterEventName = (q: BillableQuantity): string => quantityKey(q);

/** The price's lookup key; the version suffix lets a new price replace this one later. */
export const priceLookupKey = (q: BillableQuantity): string => `${quantityKey(q)}_v1`;

/** How the quantity reads on an invoice: "Stripe twin-hours", "GitHub AI generations". */
export function quantityName(q: BillableQuantity, twinName: string): string {
  return `${twinName} ${q.kind === 'twin_hours' ? 'twin-hours' : 'AI generations'}`;
}
