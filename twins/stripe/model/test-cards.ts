// Stripe's test cards: the `pm_card_*` / `tok_*` shortcuts, raw numbers, and how each behaves.
// A card's behaviour is read from its payment method's `card.last4` (Stripe's test numbers differ
// in their last four digits), so changing a stored payment method's `last4` to `0341` through the
// records endpoint makes a working card start declining, as it would in Stripe's test mode.

export interface Decline {
  code: string;
  decline_code: string;
  message: string;
  /** True when the issuer refuses the card already when it is attached or set up. */
  onAttach: boolean;
}

interface CardFacts {
  brand: string;
  funding: 'credit' | 'debit' | 'prepaid';
  country: string;
}

const DECLINED = 'Your card was declined.';

/** Behaviour by last four digits (the test numbers Stripe documents). Absent → approves. */
const DECLINES: Record<string, Decline> = {
  '0002': { code: 'card_declined', decline_code: 'generic_decline', message: DECLINED, onAttach: true },
  '9995': { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', onAttach: true },
  '9987': { code: 'card_declined', decline_code: 'lost_card', message: DECLINED, onAttach: true },
  '9979': { code: 'card_declined', decline_code: 'stolen_card', message: DECLINED, onAttach: true },
  '0069': { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.', onAttach: true },
  '0127': { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: "Your card's security code is incorrect.", onAttach: true },
  '0119': {
    code: 'processing_error',
    decline_code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
    onAttach: true,
  },
  // 4000 0000 0000 0341: attaching succeeds, every charge fails.
  '0341': { code: 'card_declined', decline_code: 'generic_decline', message: DECLINED, onAttach: false },
  '6975': { code: 'card_declined', decline_code: 'card_velocity_exceeded', message: DECLINED, onAttach: true },
  // Radar blocks these at the charge (the card itself attaches): 4100 0000 0000 0019 always, and
  // 4000 0000 0000 4954 (risk level highest) under Radar's default rule "Block if :risk_level: = 'highest'".
  '0019': { code: 'card_declined', decline_code: 'fraudulent', message: DECLINED, onAttach: false },
  '4954': { code: 'card_declined', decline_code: 'fraudulent', message: DECLINED, onAttach: false },
};

/** Radar's risk evaluation of Stripe's risk-level test cards (test mode scores no other payment). */
export interface RiskEvaluation {
  level: 'elevated' | 'highest';
  score: number;
  /** Blocked by Radar before the card network saw it (the charge fails `fraudulent`). */
  blocked: boolean;
}

const RISK: Record<string, RiskEvaluation> = {
  '9235': { level: 'elevated', score: 67, blocked: false },
  '4954': { level: 'highest', score: 85, blocked: true },
  '0019': { level: 'highest', score: 95, blocked: true },
};

export function riskFor(last4: string | undefined): RiskEvaluation | undefined {
  return last4 ? RISK[last4] : undefined;
}

/** 4000 0000 0000 0077 (and the international 4000 0037 2000 0278): funds go straight to the available balance. */
export function bypassesPending(last4: string | undefined): boolean {
  return last4 === '0077' || last4 === '0278';
}

export function declineFor(last4: string | undefined): Decline | undefined {
  return last4 ? DECLINES[last4] : undefined;
}

/**
 * 3D Secure test cards: `always` needs authentication on every payment (off-session payments fail
 * with `authentication_required`); `on_session` (4000 0025 0000 3155) needs it for on-session
 * payments only once the card is saved to a customer.
 */
export type AuthenticationRule = 'always' | 'on_session';

const AUTHENTICATION: Record<string, AuthenticationRule> = {
  '3184': 'always',
  '3220': 'always',
  '3155': 'on_session',
};

export function authenticationFor(last4: string | undefined): AuthenticationRule | undefined {
  return last4 ? AUTHENTICATION[last4] : undefined;
}

/** `pm_card_*` ids (and `tok_*` tokens) → card numbers. */
const SHORTCUTS: Record<string, string> = {
  visa: '4242424242424242',
  visa_debit: '4000056655665556',
  mastercard: '5555555555554444',
  mastercard_debit: '5200828282828210',
  mastercard_prepaid: '5105105105105100',
  amex: '378282246310005',
  discover: '6011111111111117',
  diners: '3056930009020004',
  jcb: '3566002020360505',
  unionpay: '6200000000000005',
  chargeDeclined: '4000000000000002',
  visa_chargeDeclined: '4000000000000002',
  chargeDeclinedInsufficientFunds: '4000000000009995',
  visa_chargeDeclinedInsufficientFunds: '4000000000009995',
  chargeDeclinedLostCard: '4000000000009987',
  visa_chargeDeclinedLostCard: '4000000000009987',
  chargeDeclinedStolenCard: '4000000000009979',
  visa_chargeDeclinedStolenCard: '4000000000009979',
  chargeDeclinedExpiredCard: '4000000000000069',
  visa_chargeDeclinedExpiredCard: '4000000000000069',
  chargeDeclinedIncorrectCvc: '4000000000000127',
  visa_chargeDeclinedIncorrectCvc: '4000000000000127',
  chargeDeclinedProcessingError: '4000000000000119',
  visa_chargeDeclinedProcessingError: '4000000000000119',
  threeDSecure2Required: '4000000000003220',
  authenticationRequired: '4000002760003184',
  authenticationRequiredOnSetup: '4000002500003155',
  chargeCustomerFail: '4000000000000341',
  // Dispute test cards (model/disputes.ts): a captured charge is disputed at once.
  createDispute: '4000000000000259',
  createDisputeProductNotReceived: '4000000000002685',
  createDisputeInquiry: '4000000000001976',
  // The charge succeeds; a refund of it fails (model/refunds.ts).
  refundFail: '4000000000005126',
  // Radar (docs.stripe.com/radar/testing) and the available balance (docs.stripe.com/testing#available-balance).
  riskLevelElevated: '4000000000009235',
  riskLevelHighest: '4000000000004954',
  radarBlock: '4100000000000019',
  chargeDeclinedFraudulent: '4100000000000019',
  visa_chargeDeclinedFraudulent: '4100000000000019',
  chargeDeclinedVelocityLimitExceeded: '4000000000006975',
  visa_chargeDeclinedVelocityLimitExceeded: '4000000000006975',
  bypassPending: '4000000000000077',
  bypassPendingInternational: '4000003720000278',
  visa_chargeCustomerFail: '4000000000000341',
};

/** The card number behind `pm_card_visa`, `tok_visa`…, or undefined for any other id. */
export function shortcutNumber(id: string): string | undefined {
  const m = /^(?:pm_card_|tok_)(.+)$/.exec(id);
  return m ? SHORTCUTS[m[1]!] : undefined;
}

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardFacts(number: string): CardFacts {
  const debit = ['4000056655665556', '5200828282828210'].includes(number);
  const prepaid = number === '5105105105105100';
  const funding = debit ? 'debit' : prepaid ? 'prepaid' : 'credit';
  let brand = 'unknown';
  if (number.startsWith('4')) brand = 'visa';
  else if (/^(5[1-5]|2[2-7])/.test(number)) brand = 'mastercard';
  else if (/^3[47]/.test(number)) brand = 'amex';
  else if (/^(6011|65|64[4-9])/.test(number)) brand = 'discover';
  else if (/^3(0[0-5]|[68])/.test(number)) brand = 'diners';
  else if (/^35/.test(number)) brand = 'jcb';
  else if (/^62/.test(number)) brand = 'unionpay';
  return { brand, funding, country: 'US' };
}
