// Every Stripe route, one file per resource (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { billingSettingsRoutes } from './billing-settings.js';
import { billingPortalRoutes } from './billing-portal.js';
import { hostedPortalRoutes } from './hosted-portal.js';
import { invoiceItemRoutes } from './invoice-items.js';
import { creditNoteRoutes } from './credit-notes.js';
import { subscriptionScheduleRoutes } from './subscription-schedules.js';
import { chargeRoutes } from './charges.js';
import { checkoutRoutes } from './checkout.js';
import { customerRoutes } from './customers.js';
import { taxIdRoutes } from './tax-ids.js';
import { fileRoutes } from './files.js';
import { reviewRoutes } from './reviews.js';
import { planRoutes } from './plans.js';
import { entitlementRoutes } from './entitlements.js';
import { v2BillingRoutes } from './v2-billing.js';
import { tokenRoutes } from './tokens.js';
import { couponRoutes } from './coupons.js';
import { taxRateRoutes } from './tax-rates.js';
import { customerBalanceRoutes } from './customer-balance.js';
import { eventRoutes } from './events.js';
import { invoiceRoutes } from './invoices.js';
import { hostedInvoiceRoutes } from './hosted-invoice.js';
import { hostedReceiptRoutes } from './hosted-receipt.js';
import { meterRoutes } from './meters.js';
import { paymentIntentRoutes } from './payment-intents.js';
import { paymentMethodRoutes } from './payment-methods.js';
import { priceRoutes } from './prices.js';
import { productRoutes } from './products.js';
import { refundRoutes } from './refunds.js';
import { setupIntentRoutes } from './setup-intents.js';
import { subscriptionRoutes } from './subscriptions.js';
import { testClockRoutes } from './test-clocks.js';
import { webhookRoutes } from './webhooks.js';
import { balanceRoutes } from './balance.js';
import { payoutRoutes } from './payouts.js';
import { disputeRoutes } from './disputes.js';
import { clientCredentialRoutes } from './client-credentials.js';
import { accountRoutes } from './accounts.js';
import { hostedOnboardingRoutes } from './hosted-onboarding.js';
import { transferRoutes } from './transfers.js';
import { quoteRoutes } from './quotes.js';
import { paymentLinkRoutes } from './payment-links.js';
import { scopedRoutes } from '../wire/connect-scope.js';

// Every keyed route runs in the account a `Stripe-Account` header names (wire/connect-scope.ts).
export const routes: TwinRoute[] = scopedRoutes([
  ...customerRoutes,
  ...taxIdRoutes,
  ...tokenRoutes,
  ...customerBalanceRoutes,
  ...couponRoutes,
  ...taxRateRoutes,
  ...productRoutes,
  ...priceRoutes,
  ...planRoutes,
  ...entitlementRoutes,
  ...paymentMethodRoutes,
  ...paymentIntentRoutes,
  ...setupIntentRoutes,
  ...chargeRoutes,
  ...refundRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...subscriptionRoutes,
  ...subscriptionScheduleRoutes,
  ...invoiceRoutes,
  ...invoiceItemRoutes,
  ...creditNoteRoutes,
  ...hostedInvoiceRoutes,
  ...hostedReceiptRoutes,
  ...meterRoutes,
  ...v2BillingRoutes,
  ...checkoutRoutes,
  ...quoteRoutes,
  ...paymentLinkRoutes,
  ...testClockRoutes,
  ...billingSettingsRoutes,
  ...billingPortalRoutes,
  ...hostedPortalRoutes,
  ...balanceRoutes,
  ...payoutRoutes,
  ...disputeRoutes,
  ...fileRoutes,
  ...reviewRoutes,
  ...clientCredentialRoutes,
  ...accountRoutes,
  ...hostedOnboardingRoutes,
  ...transferRoutes,
]);
