import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { PublicLayout } from '../site/PublicLayout';
import { useDocumentTitle } from '../site/useDocumentTitle';

export const EFFECTIVE_DATE = 'August 15, 2025';

export interface PolicySection {
  heading: string;
  body: ReactNode;
}

/** A policy document: title, effective date, numbered sections with a table of contents. */
export function PolicyPage({
  title,
  description,
  intro,
  sections,
}: {
  title: string;
  /** The page's meta description. */
  description: string;
  intro: ReactNode;
  sections: PolicySection[];
}) {
  useDocumentTitle(title, description);
  const id = (i: number) => `section-${i + 1}`;
  return (
    <PublicLayout maxWidth="md">
      <Paper
        variant="outlined"
        component="article"
        sx={{ p: { xs: 3, sm: 5 }, '& p': { mt: 0, mb: 1.5 }, '& ul': { mt: 0, mb: 1.5 } }}
      >
        <Typography variant="h1">{title}</Typography>
        <Typography sx={{ color: 'text.secondary', mt: 1, mb: 3 }}>Effective date: {EFFECTIVE_DATE}</Typography>
        <Box sx={{ mb: 3 }}>{intro}</Box>
        <Box component="nav" aria-label="Contents" sx={{ mb: 4 }}>
          <Typography variant="h2" sx={{ fontSize: '1.1rem', mb: 1 }}>
            Contents
          </Typography>
          <Box component="ol" sx={{ m: 0, pl: 3 }}>
            {sections.map((s, i) => (
              <li key={s.heading}>
                <a href={`#${id(i)}`}>{s.heading}</a>
              </li>
            ))}
          </Box>
        </Box>
        {sections.map((s, i) => (
          <Box
            component="section"
            key={s.heading}
            id={id(i)}
            aria-labelledby={`${id(i)}-title`}
            sx={{ mb: 3, scrollMarginTop: 16 }}
          >
            <Typography id={`${id(i)}-title`} variant="h2" sx={{ fontSize: '1.25rem', mb: 1 }}>
              {i + 1}. {s.heading}
            </Typography>
            <Typography component="div">{s.body}</Typography>
          </Box>
        ))}
      </Paper>
    </PublicLayout>
  );
}
