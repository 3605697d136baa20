export function GeoBlockedPage() {
  return <main>GeoBlockedPage</main>;
}

export default GeoBlockedPage;
