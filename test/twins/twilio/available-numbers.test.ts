// Twilio's AvailablePhoneNumbers driven by the `twilio` package through the recording gateway:
// the countries, per country the Local, Mobile and TollFree numbers with capability and place
// filters, a Contains pattern, Twilio's 404 for a type a country does not offer, and a listed
// number bought through IncomingPhoneNumbers (then no longer offered), also per type.

import t from 'tap';
import twilio from 'twilio';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';

const gw = await startGatewayTwin('twilio', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => gw.close());
const credential = gw.twin.server.host.credential();
const client = twilio(credential.account_sid!, credential.api_key, {});
client.api.baseUrl = gw.url;

t.test('the countries, each with the types it offers', async (t) => {
  const countries = await client.availablePhoneNumbers.list();
  t.same(countries.map((c) => c.countryCode).sort(), ['CA', 'GB', 'US']);
  const gb = await client.availablePhoneNumbers('GB').fetch();
  t.equal(gb.country, 'United Kingdom');
  t.same(Object.keys(gb.subresourceUris).sort(), ['local', 'mobile', 'toll_free']);
  const missing = await client
    .availablePhoneNumbers('ZZ')
    .fetch()
    .catch((e) => e);
  t.equal(missing.status, 404);
});

t.test('Local, Mobile and TollFree numbers, filtered as Twilio filters them', async (t) => {
  const sf = await client.availablePhoneNumbers('US').local.list({ areaCode: 415, limit: 5 });
  t.equal(sf.length, 5);
  for (const n of sf) {
    t.match(n.phoneNumber, /^\+1415555\d{4}$/);
    t.equal(n.locality, 'San Francisco');
    t.equal(n.region, 'CA');
    t.equal(n.isoCountry, 'US');
    t.same(n.capabilities, { voice: true, sms: true, mms: true, fax: true });
  }
  const texas = await client.availablePhoneNumbers('US').local.list({ inRegion: 'TX', limit: 3 });
  t.ok(texas.length > 0 && texas.every((n) => n.locality === 'Austin'));
  const pattern = await client.availablePhoneNumbers('US').local.list({ contains: '+1212555010*', limit: 20 });
  t.same(
    pattern.map((n) => n.phoneNumber),
    Array.from({ length: 10 }, (_, i) => `+1212555010${i}`),
    'a pattern anchored at the start, * one digit',
  );
  const mms = await client.availablePhoneNumbers('GB').mobile.list({ mmsEnabled: true, limit: 5 });
  t.same(mms, [], 'no UK mobile number takes MMS');
  const ukMobile = await client.availablePhoneNumbers('GB').mobile.list({ smsEnabled: true, limit: 2 });
  t.equal(ukMobile.length, 2);
  t.match(ukMobile[0]!.phoneNumber, /^\+447700900\d{3}$/);
  const free = await client.availablePhoneNumbers('US').tollFree.list({ limit: 3 });
  t.equal(free.length, 3);
  t.match(free[0]!.phoneNumber, /^\+18(00|88)555\d{4}$/, 'an E.164 toll-free number');
  t.equal(free[0]!.capabilities.mms, false);
  const usMobile = await client
    .availablePhoneNumbers('US')
    .mobile.list({ limit: 1 })
    .catch((e) => e);
  t.equal(usMobile.status, 404, 'the US offers no Mobile numbers');
  const near = await client
    .availablePhoneNumbers('US')
    .local.list({ nearNumber: '+14155550100', limit: 1 })
    .catch((e) => e);
  t.equal(near.status, 501, 'a search by distance is refused as not simulated');
  const bad = await client
    .availablePhoneNumbers('US')
    .local.list({ contains: 'x', limit: 1 })
    .catch((e) => e);
  t.equal(bad.status, 400);
});

t.test('a listed number is bought through IncomingPhoneNumbers and is then no longer offered', async (t) => {
  const [offered] = await client.availablePhoneNumbers('US').local.list({ areaCode: 512, limit: 1 });
  t.ok(offered);
  const bought = await client.incomingPhoneNumbers.create({ phoneNumber: offered!.phoneNumber });
  t.equal(bought.phoneNumber, offered!.phoneNumber);
  const after = await client.availablePhoneNumbers('US').local.list({ areaCode: 512, limit: 100 });
  t.equal(after.length, 99);
  t.notOk(
    after.some((n) => n.phoneNumber === offered!.phoneNumber),
    'the bought number left the list',
  );
  const byArea = await client.incomingPhoneNumbers.create({ areaCode: '512' });
  t.equal(byArea.phoneNumber, after[0]!.phoneNumber, 'buying by area code takes the first number offered');
});

t.test('numbers bought and listed by type (IncomingPhoneNumbers/Local, Mobile, TollFree)', async (t) => {
  const [free] = await client.availablePhoneNumbers('US').tollFree.list({ limit: 1 });
  const bought = await client.incomingPhoneNumbers.tollFree.create({ phoneNumber: free!.phoneNumber });
  t.equal(bought.phoneNumber, free!.phoneNumber);
  const tollFree = await client.incomingPhoneNumbers.tollFree.list();
  t.same(
    tollFree.map((n) => n.phoneNumber),
    [free!.phoneNumber],
  );
  const local = await client.incomingPhoneNumbers.local.list();
  t.ok(local.length > 0 && local.every((n) => !n.phoneNumber.startsWith('+1800')), 'local numbers only');
  const [mobile] = await client.availablePhoneNumbers('GB').mobile.list({ limit: 1 });
  const wrongType = await client.incomingPhoneNumbers.local.create({ phoneNumber: mobile!.phoneNumber }).catch((e) => e);
  t.equal(wrongType.status, 400, 'a mobile number is not bought as a local one');
  t.equal((await client.incomingPhoneNumbers.mobile.create({ phoneNumber: mobile!.phoneNumber })).phoneNumber, mobile!.phoneNumber);
});
