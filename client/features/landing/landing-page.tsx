export function LandingPage() { return <h1>Automate Your Business Success</h1>; }
