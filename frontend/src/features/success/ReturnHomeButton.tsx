import HomeIcon from '@mui/icons-material/Home';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { Link as RouterLink } from 'react-router-dom';

export function ReturnHomeButton() {
  return (
    <Box sx={{ textAlign: 'center', mt: 4 }}>
      <Button component={RouterLink} to="/" variant="outlined" startIcon={<HomeIcon />}>
        Return to Home
      </Button>
    </Box>
  );
}
