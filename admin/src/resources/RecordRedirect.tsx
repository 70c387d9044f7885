import { useEffect } from 'react';
import { useParams } from 'react-router';
import { useGetOne, useNavigate } from 'react-admin';
import { FullPageLoader } from '../common/FullPageLoader';
import { recordPath } from './registry';

/**
 * react-admin's own record URL (/users/5, made by ReferenceField and useCreatePath) forwards to
 * where the console shows the record (/dealers/5, /settings/roles/5).
 */
export function RecordRedirect({ resource }: { resource: string }) {
  const { id } = useParams();
  const navigate = useNavigate();
  const { data, error } = useGetOne(resource, { id: id! }, { enabled: !!id, retry: false });
  useEffect(() => {
    if (data) navigate(recordPath(resource, data), { replace: true });
    else if (error) navigate('/not-found', { replace: true });
  }, [data, error, resource, navigate]);
  return <FullPageLoader />;
}
export default RecordRedirect;
