// Verify v2 (verify.twilio.com/v2, served at the twin's root): services, verifications, checks.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { envelopeV2, pageOf } from '../wire/pagination.js';
import { bool, int, str } from '../wire/params.js';
import {
  checkVerification,
  checkView,
  createService,
  deleteService,
  getService,
  getVerification,
  serviceView,
  startVerification,
  updateService,
  updateVerification,
  verificationView,
} from '../model/verify.js';
import type { VerifyService } from '../model/records.js';
import { json } from './messages.js';

const service = (req: TwinRequest, ctx: TwinContext, name: string) => getService(ctx, req.params[name]!, req.path.replace(/^\/v2/, ''));

export const verifyRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v2/Services',
    handler(req, ctx) {
      const s = createService(ctx, {
        friendly_name: str(req, 'FriendlyName'),
        code_length: str(req, 'CodeLength') === undefined ? undefined : int(req, 'CodeLength', 6, 0, 100, 60200),
        lookup_enabled: bool(req, 'LookupEnabled'),
        skip_sms_to_landlines: bool(req, 'SkipSmsToLandlines'),
        dtmf_input_required: bool(req, 'DtmfInputRequired'),
        do_not_share_warning_enabled: bool(req, 'DoNotShareWarningEnabled'),
        custom_code_enabled: bool(req, 'CustomCodeEnabled'),
      });
      return json(201, serviceView(ctx, ctx.baseUrl, s));
    },
  },
  {
    method: 'GET',
    path: '/v2/Services',
    handler: (req, ctx) =>
      json(
        200,
        envelopeV2(`${ctx.baseUrl}/v2/Services`, 'services', pageOf(req, ctx.store.list<VerifyService>('verify_service')), (s) =>
          serviceView(ctx, ctx.baseUrl, s),
        ),
      ),
  },
  { method: 'GET', path: '/v2/Services/{Sid}', handler: (req, ctx) => json(200, serviceView(ctx, ctx.baseUrl, service(req, ctx, 'Sid'))) },
  {
    method: 'POST',
    path: '/v2/Services/{Sid}',
    handler(req, ctx) {
      const s = updateService(ctx, service(req, ctx, 'Sid'), {
        friendly_name: str(req, 'FriendlyName'),
        code_length: str(req, 'CodeLength') === undefined ? undefined : int(req, 'CodeLength', 6, 0, 100, 60200),
      });
      return json(200, serviceView(ctx, ctx.baseUrl, s));
    },
  },
  { method: 'DELETE', path: '/v2/Services/{Sid}', handler: (req, ctx) => (deleteService(ctx, service(req, ctx, 'Sid')), { status: 204 }) },
  {
    method: 'POST',
    path: '/v2/Services/{ServiceSid}/Verifications',
    handler(req, ctx) {
      const v = startVerification(ctx, service(req, ctx, 'ServiceSid'), {
        to: str(req, 'To'),
        channel: str(req, 'Channel'),
        custom_code: str(req, 'CustomCode'),
      });
      return json(201, verificationView(ctx, ctx.baseUrl, v));
    },
  },
  {
    method: 'GET',
    path: '/v2/Services/{ServiceSid}/Verifications/{Sid}',
    handler: (req, ctx) =>
      json(200, verificationView(ctx, ctx.baseUrl, getVerification(ctx, service(req, ctx, 'ServiceSid'), req.params.Sid!, req.path.replace(/^\/v2/, '')))),
  },
  {
    method: 'POST',
    path: '/v2/Services/{ServiceSid}/Verifications/{Sid}',
    handler(req, ctx) {
      const v = getVerification(ctx, service(req, ctx, 'ServiceSid'), req.params.Sid!, req.path.replace(/^\/v2/, ''));
      return json(200, verificationView(ctx, ctx.baseUrl, updateVerification(ctx, v, str(req, 'Status'))));
    },
  },
  {
    method: 'POST',
    path: '/v2/Services/{ServiceSid}/VerificationCheck',
    handler(req, ctx) {
      const s = service(req, ctx, 'ServiceSid');
      const v = checkVerification(
        ctx,
        s,
        { to: str(req, 'To'), verification_sid: str(req, 'VerificationSid'), code: str(req, 'Code') },
        req.path.replace(/^\/v2/, ''),
      );
      return json(200, checkView(ctx, v));
    },
  },
];
