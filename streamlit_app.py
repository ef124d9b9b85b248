"""Entry point: page config, cached services, navigation, sidebar."""

import streamlit as st

st.set_page_config(page_title="Deep Filings — research agent", layout="wide")
st.title("Deep Filings")
st.write("Research agent over SEC filings. The dashboard pages are coming in the next layers.")
