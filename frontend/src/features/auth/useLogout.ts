import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/store';
import { clearTokens } from './tokenStorage';
import { useAuthControllerLogoutMutation } from '../../api';

/** docs/product.md §5.6: logout calls the server (failure ignored), then always clears tokens and cached data and goes to /admin/login. */
export function useLogout(): () => Promise<void> {
  const [logout] = useAuthControllerLogoutMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  return useCallback(async () => {
    try {
      await logout();
    } finally {
      clearTokens();
      dispatch(api.util.resetApiState());
      void navigate('/admin/login', { replace: true });
    }
  }, [logout, dispatch, navigate]);
}
