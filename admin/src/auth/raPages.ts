// react-admin's own page for its /authentication-error route, loaded when shown.
export { AuthenticationError } from 'react-admin';
