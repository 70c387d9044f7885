import { AutocompleteInput, ReferenceInput } from 'react-admin';

/**
 * How a picker of users (GET /user-options) asks for them: by name, A to Z. The list sorts by
 * name only and refuses any other field (react-admin's ReferenceInput would otherwise send id).
 */
export const USER_OPTIONS_SORT = { field: 'name', order: 'ASC' } as const;

/**
 * A list's "Dealer" filter (staff only): a dealer picked by name. `source` and `alwaysOn` are read
 * by react-admin's filter form from this element's props, so they are declared here too.
 */
export function DealerFilterInput({ label, source = 'dealer_id' }: { label: string; source?: string; alwaysOn?: boolean }) {
  return (
    <ReferenceInput source={source} reference="user-options" sort={USER_OPTIONS_SORT} filter={{ user_type: 'dealer' }} label={label}>
      <AutocompleteInput label={label} optionText="name" />
    </ReferenceInput>
  );
}
