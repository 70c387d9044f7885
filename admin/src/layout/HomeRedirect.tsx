import { Navigate } from 'react-router';
import { useVisibleMenu } from './useMenu';

/** `/` goes to the home page: the first menu path the user may see, else /dashboard. */
export default function HomeRedirect() {
  const { home } = useVisibleMenu();
  return <Navigate to={home} replace />;
}
