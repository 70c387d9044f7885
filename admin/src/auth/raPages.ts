// react-admin's own pages for its /access-denied and /authentication-error routes, loaded when shown.
export { AccessDenied, AuthenticationError } from 'react-admin';
