// Invoice archive as BTCPay has it: DELETE …/invoices/{id} hides the invoice from lists (includeArchived=true shows
// it again) and POST …/unarchive brings it back. Nothing is deleted: the payment it stands for goes on as before.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { GreenfieldInvoices, InvoiceView } from './invoices.ts';

/** Archives an invoice of a store (404 for another store's); archiving again keeps the first time. */
export async function archiveInvoice(db: Db, clock: Clock, invoices: GreenfieldInvoices, storeId: string, invoiceId: string): Promise<void> {
  const view = await invoices.get(storeId, invoiceId);
  if (view.invoice.archived_at !== null) return;
  await db.kysely.updateTable('greenfield_invoices').set({ archived_at: BigInt(clock()) }).where('id', '=', view.invoice.id).execute();
}

/** Lists an archived invoice again; answers its view. */
export async function unarchiveInvoice(db: Db, invoices: GreenfieldInvoices, storeId: string, invoiceId: string): Promise<InvoiceView> {
  const view = await invoices.get(storeId, invoiceId);
  if (view.invoice.archived_at === null) return view;
  const updated = await db.kysely.updateTable('greenfield_invoices').set({ archived_at: null }).where('id', '=', view.invoice.id).returningAll().executeTakeFirstOrThrow();
  return { ...view, invoice: updated };
}
