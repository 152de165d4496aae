// The numbers an account can buy: a fixed inventory per country and type (US and Canada Local and
// TollFree, the UK Local, Mobile and TollFree), drawn from the ranges set aside for fiction and
// tests (NANP 555-01XX, Ofcom's drama ranges), less the numbers the account already owns. Searched
// as AvailablePhoneNumbers searches: area code, a `Contains` pattern, capabilities, and the place
// filters (`InRegion`, `InPostalCode`, `InLocality`, `InRateCenter`, `InLata`). Buying one is
// `POST IncomingPhoneNumbers` with its `PhoneNumber`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { badParam } from '../wire/errors.js';
import { findNumber, formatted } from './numbers.js';

export type NumberType = 'Local' | 'Mobile' | 'TollFree';

export interface Capabilities {
  voice: boolean;
  sms: boolean;
  mms: boolean;
  fax: boolean;
}

/** Where a block of numbers is (US and Canada carry LATA, rate centre and coordinates). */
interface Block {
  /** The number without its last two digits: 100 numbers each. */
  prefix: string;
  locality: string | null;
  region: string | null;
  rateCenter: string | null;
  lata: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  capabilities: Capabilities;
  addressRequirements: 'none' | 'any' | 'local';
}

export interface AvailableNumber extends Omit<Block, 'prefix'> {
  phoneNumber: string;
  friendlyName: string;
  isoCountry: string;
}

const ALL: Capabilities = { voice: true, sms: true, mms: true, fax: true };
const NO_MMS: Capabilities = { voice: true, sms: true, mms: false, fax: false };
const VOICE: Capabilities = { voice: true, sms: false, mms: false, fax: false };

const nanp = (npa: string, locality: string, region: string, lata: string, postalCode: string, latitude: number, longitude: number): Block => ({
  prefix: `+1${npa}55501`,
  locality,
  region,
  rateCenter: locality
    .toUpperCase()
    .replace(/[^A-Z]+/g, ' ')
    .trim()
    .slice(0, 10),
  lata,
  postalCode,
  latitude,
  longitude,
  capabilities: ALL,
  addressRequirements: 'none',
});

const tollFree = (prefix: string, capabilities: Capabilities): Block => ({
  prefix,
  locality: null,
  region: null,
  rateCenter: null,
  lata: null,
  postalCode: null,
  latitude: null,
  longitude: null,
  capabilities,
  addressRequirements: 'none',
});

const uk = (prefix: string, locality: string | null, capabilities: Capabilities, addressRequirements: Block['addressRequirements']): Block => ({
  ...tollFree(prefix, capabilities),
  locality,
  addressRequirements,
});

export const COUNTRIES: Record<string, { name: string; types: Partial<Record<NumberType, Block[]>> }> = {
  US: {
    name: 'United States',
    types: {
      Local: [
        nanp('415', 'San Francisco', 'CA', '722', '94105', 37.7749, -122.4194),
        nanp('212', 'New York', 'NY', '132', '10001', 40.7128, -74.006),
        nanp('512', 'Austin', 'TX', '558', '78701', 30.2672, -97.7431),
        nanp('312', 'Chicago', 'IL', '358', '60601', 41.8781, -87.6298),
        nanp('808', 'Hilo', 'HI', '834', '96720', 19.72, -155.09),
      ],
      TollFree: [tollFree('+180055501', NO_MMS), tollFree('+188855501', NO_MMS)],
    },
  },
  CA: {
    name: 'Canada',
    types: {
      Local: [nanp('416', 'Toronto', 'ON', '888', 'M5H 2N2', 43.6532, -79.3832), nanp('604', 'Vancouver', 'BC', '888', 'V6B 1A1', 49.2827, -123.1207)],
      TollFree: [tollFree('+185555501', VOICE)],
    },
  },
  GB: {
    name: 'United Kingdom',
    types: {
      Local: [uk('+4420794600', 'London', VOICE, 'local'), uk('+4416149600', 'Manchester', VOICE, 'local')],
      Mobile: [uk('+4477009000', null, NO_MMS, 'any')],
      TollFree: [uk('+4480815700', null, VOICE, 'any')],
    },
  },
};

export const TYPE_KEYS: Record<NumberType, string> = { Local: 'local', Mobile: 'mobile', TollFree: 'toll_free' };

export interface NumberSearch {
  areaCode?: string;
  contains?: string;
  smsEnabled?: boolean;
  mmsEnabled?: boolean;
  voiceEnabled?: boolean;
  faxEnabled?: boolean;
  excludeAllAddressRequired?: boolean;
  excludeLocalAddressRequired?: boolean;
  inRegion?: string;
  inPostalCode?: string;
  inLocality?: string;
  inRateCenter?: string;
  inLata?: string;
}

const KEYPAD: Record<string, string> = Object.fromEntries(
  ['abc', 'def', 'ghi', 'jkl', 'mno', 'pqrs', 'tuv', 'wxyz'].flatMap((letters, i) => [...letters].map((l) => [l, String(i + 2)])),
);

/**
 * Twilio's `Contains`: 2 to 16 digits or letters (a letter is its keypad digit); `*` one digit,
 * `%` any digits; matched anywhere in the number unless it starts with `+` (from the start) or
 * ends with `$` (at the end).
 */
function containsPattern(pattern: string): RegExp {
  if (!/^\+?[0-9A-Za-z*%]{2,16}\$?$/.test(pattern)) throw badParam(21421, `Invalid Contains pattern: ${pattern}`);
  const anchoredStart = pattern.startsWith('+');
  const anchoredEnd = pattern.endsWith('$');
  const body = pattern
    .replace(/^\+/, '')
    .replace(/\$$/, '')
    .toLowerCase()
    .split('')
    .map((c) => (c === '*' ? '\\d' : c === '%' ? '\\d*' : (KEYPAD[c] ?? c)))
    .join('');
  return new RegExp(`${anchoredStart ? '^\\+' : ''}${body}${anchoredEnd ? '$' : ''}`);
}

function sameText(a: string | null, b: string | undefined): boolean {
  return b === undefined || (a !== null && a.toLowerCase() === b.toLowerCase());
}

/** Whether a country offers numbers of a type (undefined: Twilio's 404 for the list). */
export function offers(countryCode: string, type: NumberType): boolean {
  return !!COUNTRIES[countryCode]?.types[type];
}

/** The numbers of a country and type the account could buy now, filtered, in inventory order. */
export function availableNumbers(ctx: TwinContext, countryCode: string, type: NumberType, search: NumberSearch): AvailableNumber[] {
  const blocks = COUNTRIES[countryCode]?.types[type] ?? [];
  const contains = search.contains ? containsPattern(search.contains) : undefined;
  if (search.areaCode !== undefined && !/^\d{3}$/.test(search.areaCode)) throw badParam(21451, `Invalid area code ${search.areaCode}`);
  const out: AvailableNumber[] = [];
  for (const block of blocks) {
    const c = block.capabilities;
    if (search.areaCode !== undefined && !block.prefix.startsWith(`+1${search.areaCode}`)) continue;
    if (search.smsEnabled !== undefined && c.sms !== search.smsEnabled) continue;
    if (search.mmsEnabled !== undefined && c.mms !== search.mmsEnabled) continue;
    if (search.voiceEnabled !== undefined && c.voice !== search.voiceEnabled) continue;
    if (search.faxEnabled !== undefined && c.fax !== search.faxEnabled) continue;
    if (search.excludeAllAddressRequired && block.addressRequirements === 'any') continue;
    if (search.excludeLocalAddressRequired && block.addressRequirements === 'local') continue;
    if (!sameText(block.region, search.inRegion) || !sameText(block.postalCode, search.inPostalCode) || !sameText(block.locality, search.inLocality)) continue;
    if (!sameText(block.rateCenter, search.inRateCenter) || !sameText(block.lata, search.inLata)) continue;
    const { prefix, ...where } = block;
    for (let i = 0; i < 100; i++) {
      const phoneNumber = `${prefix}${String(i).padStart(2, '0')}`;
      if (contains && !contains.test(phoneNumber)) continue;
      if (findNumber(ctx, phoneNumber)) continue;
      out.push({
        ...where,
        phoneNumber,
        friendlyName: countryCode === 'US' || countryCode === 'CA' ? formatted(phoneNumber) : phoneNumber,
        isoCountry: countryCode,
      });
    }
  }
  return out;
}

/** The first number of an area code the account can buy (buying by `AreaCode`), if the inventory has that area. */
export function firstInArea(ctx: TwinContext, areaCode: string): string | undefined {
  for (const country of ['US', 'CA']) {
    const found = availableNumbers(ctx, country, 'Local', { areaCode })[0];
    if (found) return found.phoneNumber;
  }
  return undefined;
}

const TOLL_FREE_NANP = /^\+18(00|33|44|55|66|77|88)\d{7}$/;

/** The type of a number as Twilio files an account's numbers: toll-free prefixes, UK mobiles, else local. */
export function numberType(e164: string): NumberType {
  if (TOLL_FREE_NANP.test(e164) || /^\+44(80|30)/.test(e164)) return 'TollFree';
  if (/^\+447/.test(e164)) return 'Mobile';
  return 'Local';
}
