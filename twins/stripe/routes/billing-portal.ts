// /v1/billing_portal/configurations (create, retrieve, update, list) and
// /v1/billing_portal/sessions (create); the page a session's `url` opens is hosted-portal.ts.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, emptyableStr, obj, oneOf, readMetadata, readParams, requiredStr, str, strArray, objArray, type Params } from '../wire/params.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { FEEDBACK, PRORATION_BEHAVIORS } from '../model/subscriptions.js';
import {
  ALLOWED_CUSTOMER_UPDATES,
  ALLOWED_SUBSCRIPTION_UPDATES,
  CANCEL_MODES,
  FLOW_TYPES,
  createPortalConfiguration,
  createPortalSession,
  getPortalConfiguration,
  listPortalConfigurations,
  updatePortalConfiguration,
  type PortalConfigurationFields,
  type PortalFeaturesInput,
  type PortalFlowInput,
} from '../model/billing-portal.js';

function enabled(p: Params, prefix: string): boolean {
  const v = bool(p, 'enabled', prefix);
  if (v === undefined) throw missingParam(`${prefix}[enabled]`);
  return v;
}

/** Every value of a list parameter is one of `allowed` (Stripe names the first that is not). */
function allOf(values: string[] | undefined, allowed: readonly string[], param: string): string[] | undefined {
  values?.forEach((v, i) => {
    if (!allowed.includes(v)) throw invalidRequest(`Invalid ${param}[${i}]: must be one of ${allowed.join(', ')}`, `${param}[${i}]`);
  });
  return values;
}

function readFeatures(p: Params): PortalFeaturesInput | undefined {
  const f = obj(p, 'features');
  if (!f) return undefined;
  const at = (k: string) => `features[${k}]`;
  const out: PortalFeaturesInput = {};
  const cu = obj(f, 'customer_update', 'features');
  if (cu)
    out.customerUpdate = {
      enabled: enabled(cu, at('customer_update')),
      allowedUpdates: allOf(strArray(cu, 'allowed_updates', at('customer_update')), ALLOWED_CUSTOMER_UPDATES, `${at('customer_update')}[allowed_updates]`),
    };
  const ih = obj(f, 'invoice_history', 'features');
  if (ih) out.invoiceHistory = { enabled: enabled(ih, at('invoice_history')) };
  const pmu = obj(f, 'payment_method_update', 'features');
  if (pmu) out.paymentMethodUpdate = { enabled: enabled(pmu, at('payment_method_update')) };
  const sc = obj(f, 'subscription_cancel', 'features');
  if (sc) {
    const reason = obj(sc, 'cancellation_reason', at('subscription_cancel'));
    const reasonAt = `${at('subscription_cancel')}[cancellation_reason]`;
    out.subscriptionCancel = {
      enabled: enabled(sc, at('subscription_cancel')),
      mode: oneOf(sc, 'mode', CANCEL_MODES, at('subscription_cancel')),
      prorationBehavior: oneOf(sc, 'proration_behavior', PRORATION_BEHAVIORS, at('subscription_cancel')),
      cancellationReason: reason && {
        enabled: enabled(reason, reasonAt),
        options: allOf(strArray(reason, 'options', reasonAt), FEEDBACK, `${reasonAt}[options]`) ?? [],
      },
    };
  }
  const sp = obj(f, 'subscription_pause', 'features');
  if (sp) out.subscriptionPause = { enabled: bool(sp, 'enabled', at('subscription_pause')) };
  const su = obj(f, 'subscription_update', 'features');
  if (su) {
    const suAt = at('subscription_update');
    out.subscriptionUpdate = {
      enabled: enabled(su, suAt),
      defaultAllowedUpdates: allOf(strArray(su, 'default_allowed_updates', suAt), ALLOWED_SUBSCRIPTION_UPDATES, `${suAt}[default_allowed_updates]`),
      products:
        su.products === ''
          ? null
          : objArray(su, 'products', suAt)?.map((x, i) => ({
              product: requiredStr(x, 'product', `${suAt}[products][${i}]`),
              prices: strArray(x, 'prices', `${suAt}[products][${i}]`) ?? [],
            })),
      prorationBehavior: oneOf(su, 'proration_behavior', PRORATION_BEHAVIORS, suAt),
    };
  }
  return out;
}

function readConfiguration(p: Params): PortalConfigurationFields {
  const bp = obj(p, 'business_profile');
  const login = obj(p, 'login_page');
  return {
    features: readFeatures(p),
    businessProfile: bp && {
      headline: emptyableStr(bp, 'headline', 'business_profile'),
      privacyPolicyUrl: str(bp, 'privacy_policy_url', 'business_profile'),
      termsOfServiceUrl: str(bp, 'terms_of_service_url', 'business_profile'),
    },
    defaultReturnUrl: emptyableStr(p, 'default_return_url'),
    loginPage: login && { enabled: enabled(login, 'login_page') },
    metadata: readMetadata(p),
    name: emptyableStr(p, 'name'),
  };
}

function readFlow(p: Params): PortalFlowInput | undefined {
  const f = obj(p, 'flow_data');
  if (!f) return undefined;
  const type = oneOf(f, 'type', FLOW_TYPES, 'flow_data');
  if (!type) throw missingParam('flow_data[type]');
  const inner = obj(f, type, 'flow_data');
  const after = obj(f, 'after_completion', 'flow_data');
  const afterType = after && oneOf(after, 'type', ['hosted_confirmation', 'portal_homepage', 'redirect'] as const, 'flow_data[after_completion]');
  return {
    type,
    subscription: inner && str(inner, 'subscription', `flow_data[${type}]`),
    afterCompletion: afterType
      ? {
          type: afterType,
          redirectReturnUrl: str(obj(after!, 'redirect', 'flow_data[after_completion]') ?? {}, 'return_url', 'flow_data[after_completion][redirect]'),
          customMessage: str(
            obj(after!, 'hosted_confirmation', 'flow_data[after_completion]') ?? {},
            'custom_message',
            'flow_data[after_completion][hosted_confirmation]',
          ),
        }
      : undefined,
  };
}

export const billingPortalRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/billing_portal/configurations',
    handler: (req, ctx) => {
      const p = readParams(req);
      const input = readConfiguration(p);
      if (!input.features) throw missingParam('features');
      return ok(createPortalConfiguration(ctx, { ...input, features: input.features }));
    },
  },
  {
    method: 'GET',
    path: '/v1/billing_portal/configurations',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        listEnvelope(
          listPortalConfigurations(ctx, { active: bool(p, 'active'), isDefault: bool(p, 'is_default') }, readListWindow(p)),
          '/v1/billing_portal/configurations',
        ),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/billing_portal/configurations/{configuration}',
    handler: (req, ctx) => (readParams(req), ok(getPortalConfiguration(ctx, req.params.configuration!))),
  },
  {
    method: 'POST',
    path: '/v1/billing_portal/configurations/{configuration}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updatePortalConfiguration(ctx, req.params.configuration!, { ...readConfiguration(p), active: bool(p, 'active') }));
    },
  },
  {
    method: 'POST',
    path: '/v1/billing_portal/sessions',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createPortalSession(ctx, {
          customer: requiredStr(p, 'customer'),
          returnUrl: str(p, 'return_url'),
          configuration: str(p, 'configuration'),
          locale: str(p, 'locale'),
          flow: readFlow(p),
        }),
      );
    },
  },
];
