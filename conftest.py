# Makes the repository root importable when pytest runs from a checkout.
