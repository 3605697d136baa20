import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';

const WIDTH = 600;
const HEIGHT = 160;
const PAD_BOTTOM = 20;
const PAD_TOP = 14;

/** A small bar chart (plain SVG) of redemptions per day of the selected period. */
export function DailyRedemptionsChart({ data }: { data: Array<{ date: string; count: number }> }) {
  const theme = useTheme();
  const total = data.reduce((sum, d) => sum + d.count, 0);
  const peak = Math.max(0, ...data.map((d) => d.count));
  const max = Math.max(1, peak);
  const slot = WIDTH / Math.max(1, data.length);
  const barWidth = Math.max(1, slot * 0.7);
  const plot = HEIGHT - PAD_BOTTOM - PAD_TOP;
  const label = `Daily redemptions: ${total} over ${data.length} day${data.length === 1 ? '' : 's'}`;
  return (
    <Box>
      <Typography variant="subtitle2" sx={{ color: 'text.secondary' }} gutterBottom>
        Daily Redemptions
      </Typography>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        height={HEIGHT}
        role="img"
        aria-label={label}
        preserveAspectRatio="none"
      >
        <line x1={0} x2={WIDTH} y1={HEIGHT - PAD_BOTTOM} y2={HEIGHT - PAD_BOTTOM} stroke={theme.palette.divider} />
        {data.map((d, i) => {
          const h = (d.count / max) * plot;
          return (
            <rect
              key={d.date}
              x={i * slot + (slot - barWidth) / 2}
              y={HEIGHT - PAD_BOTTOM - h}
              width={barWidth}
              height={h}
              rx={Math.min(3, barWidth / 3)}
              fill={theme.palette.primary.main}
            >
              <title>{`${d.date}: ${d.count}`}</title>
            </rect>
          );
        })}
        <text x={2} y={10} fontSize={11} fill={theme.palette.text.secondary}>
          {`max ${peak}`}
        </text>
        {data.length > 0 && (
          <>
            <text x={2} y={HEIGHT - 4} fontSize={11} fill={theme.palette.text.secondary}>
              {data[0].date}
            </text>
            {data.length > 1 && (
              <text x={WIDTH - 2} y={HEIGHT - 4} fontSize={11} textAnchor="end" fill={theme.palette.text.secondary}>
                {data[data.length - 1].date}
              </text>
            )}
          </>
        )}
      </svg>
    </Box>
  );
}
