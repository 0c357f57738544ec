export default function UsersPage() { return <h1>Users</h1>; }
