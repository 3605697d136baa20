export function TermsPage() {
  return <main>TermsPage</main>;
}

export default TermsPage;
