// AvailablePhoneNumbers (2010-04-01): the countries the account can buy numbers in, and per
// country the Local, Mobile and TollFree numbers it offers (model/available.ts); the types a
// country does not offer (National, SharedCost, Voip, MachineToMachine everywhere; Mobile in the
// US and Canada) answer Twilio's 404, as an unknown country does.

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownAccount } from '../wire/auth.js';
import { notFound } from '../wire/errors.js';
import { envelope2010, pageOf } from '../wire/pagination.js';
import { bool, str } from '../wire/params.js';
import { availableNumbers, COUNTRIES, offers, TYPE_KEYS, type AvailableNumber, type NumberSearch, type NumberType } from '../model/available.js';
import { API } from '../model/records.js';
import { json } from './messages.js';

const BASE = `${API}/Accounts/{AccountSid}/AvailablePhoneNumbers`;
const TYPES = ['Local', 'Mobile', 'TollFree', 'National', 'SharedCost', 'Voip', 'MachineToMachine'] as const;
/** Searches by distance need the coordinates of every number and of the place asked about. */
const NEAR = ['NearNumber', 'NearLatLong', 'Distance'];

function countryView(acct: string, code: string) {
  const base = `${API}/Accounts/${acct}/AvailablePhoneNumbers/${code}`;
  const types = Object.keys(COUNTRIES[code]!.types) as NumberType[];
  return {
    country_code: code,
    country: COUNTRIES[code]!.name,
    uri: `${base}.json`,
    beta: false,
    subresource_uris: Object.fromEntries(types.map((t) => [TYPE_KEYS[t], `${base}/${t}.json`])),
  };
}

function numberView(n: AvailableNumber) {
  return {
    friendly_name: n.friendlyName,
    phone_number: n.phoneNumber,
    lata: n.lata,
    locality: n.locality,
    rate_center: n.rateCenter,
    latitude: n.latitude === null ? null : n.latitude.toFixed(6),
    longitude: n.longitude === null ? null : n.longitude.toFixed(6),
    region: n.region,
    postal_code: n.postalCode,
    iso_country: n.isoCountry,
    address_requirements: n.addressRequirements,
    beta: false,
    capabilities: n.capabilities,
  };
}

function search(req: TwinRequest): { search: NumberSearch; filters: Record<string, string | undefined> } {
  const near = NEAR.find((p) => str(req, p) !== undefined);
  if (near) throw new NotSimulated(`GET ${req.template ?? req.path} with ${near}`, 'The twin searches its numbers by place, not by distance.');
  const names = [
    'AreaCode',
    'Contains',
    'SmsEnabled',
    'MmsEnabled',
    'VoiceEnabled',
    'FaxEnabled',
    'ExcludeAllAddressRequired',
    'ExcludeLocalAddressRequired',
    'ExcludeForeignAddressRequired',
    'Beta',
    'InRegion',
    'InPostalCode',
    'InLocality',
    'InRateCenter',
    'InLata',
  ];
  const filters = Object.fromEntries(names.map((n) => [n, str(req, n)]));
  return {
    filters,
    search: {
      areaCode: str(req, 'AreaCode'),
      contains: str(req, 'Contains'),
      smsEnabled: bool(req, 'SmsEnabled'),
      mmsEnabled: bool(req, 'MmsEnabled'),
      voiceEnabled: bool(req, 'VoiceEnabled'),
      faxEnabled: bool(req, 'FaxEnabled'),
      excludeAllAddressRequired: bool(req, 'ExcludeAllAddressRequired'),
      excludeLocalAddressRequired: bool(req, 'ExcludeLocalAddressRequired'),
      inRegion: str(req, 'InRegion'),
      inPostalCode: str(req, 'InPostalCode'),
      inLocality: str(req, 'InLocality'),
      inRateCenter: str(req, 'InRateCenter'),
      inLata: str(req, 'InLata'),
    },
  };
}

export const availableRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: `${BASE}.json`,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const countries = Object.keys(COUNTRIES).map((code) => ({ sid: code, ...countryView(acct, code) }));
      return json(
        200,
        envelope2010(`${API}/Accounts/${acct}/AvailablePhoneNumbers.json`, 'countries', {}, pageOf(req, countries), ({ sid: _sid, ...c }) => c),
      );
    },
  },
  {
    method: 'GET',
    path: `${BASE}/{CountryCode}.json`,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const code = req.params.CountryCode!;
      if (!COUNTRIES[code]) throw notFound(req.path);
      return json(200, countryView(acct, code));
    },
  },
  ...TYPES.map(
    (type): TwinRoute => ({
      method: 'GET',
      path: `${BASE}/{CountryCode}/${type}.json`,
      handler(req, ctx) {
        const acct = ownAccount(req, ctx);
        const code = req.params.CountryCode!;
        if (type !== 'Local' && type !== 'Mobile' && type !== 'TollFree') throw notFound(req.path);
        if (!offers(code, type)) throw notFound(req.path);
        const { search: s, filters } = search(req);
        const found = availableNumbers(ctx, code, type, s).map((n) => ({ sid: n.phoneNumber, n }));
        return json(
          200,
          envelope2010(`${API}/Accounts/${acct}/AvailablePhoneNumbers/${code}/${type}.json`, 'available_phone_numbers', filters, pageOf(req, found), (x) =>
            numberView(x.n),
          ),
        );
      },
    }),
  ),
];
