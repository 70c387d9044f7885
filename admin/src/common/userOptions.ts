/**
 * How a picker of users (GET /user-options) asks for them: by name, A to Z. The list sorts by
 * name only and refuses any other field (react-admin's ReferenceInput would otherwise send id).
 */
export const USER_OPTIONS_SORT = { field: 'name', order: 'ASC' } as const;
