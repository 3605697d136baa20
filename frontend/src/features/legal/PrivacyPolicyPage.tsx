export function PrivacyPolicyPage() {
  return <main>PrivacyPolicyPage</main>;
}

export default PrivacyPolicyPage;
