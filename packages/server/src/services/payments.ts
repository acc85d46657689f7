/**
 * How a subscription is paid, behind one interface so a card processor can be added without touching the rules in
 * services/subscriptions.ts. Lectern ships the 'invoice' provider: an invoice is issued and stays open until the
 * operator marks it paid (admin API or `invoices:paid`); the reader keeps reading meanwhile, as with any invoice.
 */
import { randomToken } from '../util/random.ts';

export interface ChargeRequest {
  userEmail: string;
  amountCents: number;
  currency: string;
  /** what the reader is paying for, e.g. "Lectern Pro, 2026-11-24 to 2026-12-24" */
  description: string;
}

export interface PaymentProvider {
  readonly name: string;
  /** Asks for the payment; `paid` when the money is already in (a card), false when it is owed (an invoice). */
  charge(request: ChargeRequest): Promise<{ reference: string; paid: boolean }>;
  /** Undoes a charge whose subscription change did not happen (another request changed the account first). */
  void(reference: string): Promise<void>;
}

export class InvoiceProvider implements PaymentProvider {
  readonly name = 'invoice';

  async charge(request: ChargeRequest): Promise<{ reference: string; paid: boolean }> {
    // Nothing to collect for a free period (a 100% code): it is paid as issued.
    return { reference: `INV-${randomToken(9)}`, paid: request.amountCents === 0 };
  }

  async void(): Promise<void> {
    // An invoice that was never recorded was never sent: nothing to undo.
  }
}
