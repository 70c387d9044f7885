import { Confirm, useSaveContext } from 'react-admin';
import { useFormContext } from 'react-hook-form';
import { DialogContentText } from '@mui/material';

/** The API's question before it switches the pricing model of a dealer whose wallet holds money (409). */
export const isPricingChangeQuestion = (e: unknown) =>
  (e as { status?: number; body?: { code?: string } })?.status === 409 &&
  (e as { body?: { code?: string } }).body?.code === 'users.pricing_change_needs_confirmation';

/**
 * The admin's answer to that question: the server's words (they name the balance), then the same
 * save again, confirmed. Inside the form, whose values and save it uses.
 */
export function PricingChangeConfirm({ question, onConfirm, onCancel }: { question: string | null; onConfirm: () => void; onCancel: () => void }) {
  const { save } = useSaveContext();
  const { getValues } = useFormContext();
  return (
    <Confirm
      isOpen={question !== null}
      title="users.pricing_change_confirm_title"
      // A node, not a key: the server's words are shown as they came.
      content={<DialogContentText>{question}</DialogContentText>}
      confirm="users.pricing_change_confirm_save"
      confirmColor="warning"
      onConfirm={() => {
        onConfirm();
        save?.(getValues());
      }}
      onClose={onCancel}
    />
  );
}
